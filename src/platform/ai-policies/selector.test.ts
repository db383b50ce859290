import { describe, expect, it } from 'vitest';
import { matches, parseSelector, SelectorError } from './selector.js';

// Examples from Kubernetes' own tests of labels.Parse (k8s.io/apimachinery/pkg/labels/selector_test.go)
describe('label selectors', () => {
  it.each(['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=', 'x= ', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5', 'x,y', '\rx', 'this-is-a-dns.domain.com/key-with-dash',
    'this-is-another-dns.domain.com/key-with-dash in (so,what)', '0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', 'foo  in\t (abc)', 'x notin\n (abc)',
    'x  notin\t\t\t(abc,def)', 'x in (abc,def)', 'x in (abc,)', 'x in ()', 'x notin (abc,def),bar,z in (),w', 'x,y in (a)', 'x=a,y!=b,z in (h,i,j)',
    'x notin ( )', 'x notin (, a)', 'a ', 'a in (x,y,notin, z,in)', 'notin=in'])('accepts %j', (selector) => {
    expect(() => parseSelector(selector)).not.toThrow();
  });

  it.each(['x=a||y=b', 'x==a==b', '!x=a', 'x<a', ',x,y', 'x nott in (y)', 'a in (xyz),', 'a in (xyz)b notin ()', 'a in (xyz abc)', 'a notin(', 'a (', '(',
    'x=a b', 'a'.repeat(254), 'x in (a', 'x>', 'k=Bad Value'])('refuses %j', (selector) => {
    expect(() => parseSelector(selector)).toThrow(SelectorError);
  });

  it.each([
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['foo=bar,baz=blah', { foo: 'bar', baz: 'blah' }, true],
    ['foo=bar,foobar=bar,baz=blah', { foo: 'bar', baz: 'blah' }, false],
    ['x in (foo),y notin (alpha)', { x: 'foo', y: 'baz' }, true],
    ['x in (foo),y in (alpha)', { x: 'foo', y: 'baz' }, false],
    ['x notin (),y', { y: '' }, true],
    ['!x,y', { y: '' }, true],
    ['x notin (),!y', { y: '' }, false],
    ['x in ()', { y: 'baz' }, false],
    ['x in ()', { x: '' }, true],
    ['x=', { x: '' }, true],
    ['z>1', { z: '2' }, true],
    ['z>1', { z: 'v2' }, false],
    ['x!=a', {}, true],
  ] as const)('%j on %j is %s', (selector, labels, expected) => {
    expect(matches(parseSelector(selector), labels)).toBe(expected);
  });
});
