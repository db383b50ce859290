import { describe, expect, it } from 'vitest';
import { applyPatch, canonicalOperations } from './patch.js';

const user = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], id: 'u1', userName: 'eve', active: true, emails: [{ value: 'eve@home.example', type: 'home' }] };

describe('SCIM PATCH as identity providers send it', () => {
  it('takes op names in any case and booleans as strings', () => {
    const operations = canonicalOperations({ Operations: [{ op: 'Replace', path: 'active', value: 'False' }, { op: 'ADD', path: 'emails[type eq "work"].primary', value: 'True' }] });
    expect(operations).toEqual([
      { op: 'replace', path: 'active', value: false },
      { op: 'add', path: 'emails[type eq "work"].primary', value: true },
    ]);
  });

  it('applies path-less replace whose keys are paths, and drops id, meta and schemas', () => {
    const enterprise = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
    const patched = applyPatch(user, canonicalOperations({ Operations: [{ op: 'replace', value: { id: 'other', meta: {}, 'name.givenName': 'Eve', [`${enterprise}:department`]: 'Sales', active: 'false' } }] }));
    expect(patched).toMatchObject({ id: 'u1', active: false, name: { givenName: 'Eve' }, [enterprise]: { department: 'Sales' } });
    expect(canonicalOperations({ Operations: [{ op: 'replace', path: 'meta.lastModified', value: 'x' }] })).toEqual([]);
  });

  it('turns an Entra member removal by value list into one value filter each', () => {
    expect(canonicalOperations({ Operations: [{ op: 'Remove', path: 'members', value: [{ value: 'a' }, { value: 'b' }] }] })).toEqual([
      { op: 'remove', path: 'members[value eq "a"]' },
      { op: 'remove', path: 'members[value eq "b"]' },
    ]);
  });

  it('creates the entry an Entra add to emails[type eq "work"].value names', () => {
    const patched = applyPatch(user, canonicalOperations({ Operations: [{ op: 'Add', path: 'emails[type eq "work"].value', value: 'eve@work.example' }] }));
    expect(patched.emails).toEqual([
      { value: 'eve@home.example', type: 'home' },
      { type: 'work', value: 'eve@work.example' },
    ]);
  });

  it('refuses what is not a PatchOp with 400', () => {
    for (const body of [{}, { Operations: [] }, { Operations: [{ op: 'move', path: 'a' }] }, { Operations: [{ op: 'remove' }] }, { Operations: [{ op: 'add', value: 'x' }] }]) {
      expect(() => canonicalOperations(body), JSON.stringify(body)).toThrow(expect.objectContaining({ status: 400 }) as Error);
    }
  });
});
