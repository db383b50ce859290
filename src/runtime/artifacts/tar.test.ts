import { describe, expect, it } from 'vitest';
import { readTar, writeTar } from './tar.js';

/** A ustar header block for a member that writeTar would never write (links, escapes, sizes it does not hold). */
function rawMember(path: string, type: string, content = '', declaredSize = content.length): Buffer {
  const block = Buffer.alloc(512);
  block.write(path, 0);
  block.write('0000644\0', 100);
  block.write(`${declaredSize.toString(8).padStart(11, '0')}\0`, 124);
  block.write(type, 156);
  block.write('ustar\0', 257);
  const body = Buffer.alloc(Math.ceil(content.length / 512) * 512);
  body.write(content);
  return Buffer.concat([block, body]);
}
const archive = (...members: Buffer[]): Buffer => Buffer.concat([...members, Buffer.alloc(1024)]);

describe('tar archives of skills and plugins', () => {
  it('reads back what it wrote, long paths and executable bits included', () => {
    const long = `${'deep/'.repeat(30)}file.txt`;
    const tar = writeTar([
      { path: 'a', kind: 'dir', executable: true },
      { path: 'a/run.sh', kind: 'file', executable: true, content: Buffer.from('#!/bin/sh\n') },
      { path: long, kind: 'file', executable: false, content: Buffer.from('x') },
    ]);
    expect(readTar(tar).map(({ path, kind, executable, content }) => [path, kind, executable, content.toString()])).toEqual([
      ['a', 'dir', false, ''],
      ['a/run.sh', 'file', true, '#!/bin/sh\n'],
      [long, 'file', false, 'x'],
    ]);
  });

  it('writes the same bytes for the same members', () => {
    const members = [{ path: 'SKILL.md', kind: 'file' as const, executable: false, content: Buffer.from('---\n') }];
    expect(writeTar(members).equals(writeTar(members))).toBe(true);
  });

  it('refuses links, paths that leave the folder and absolute paths', () => {
    expect(() => readTar(archive(rawMember('evil', '2')))).toThrow('the artifact holds the link evil; only regular files and folders are allowed');
    expect(() => readTar(archive(rawMember('hard', '1')))).toThrow('link');
    expect(() => readTar(archive(rawMember('../escape', '0', 'x')))).toThrow('the artifact holds the path ../escape, which leaves its folder');
    expect(() => readTar(archive(rawMember('/etc/passwd', '0', 'x')))).toThrow('the artifact holds the absolute path /etc/passwd; only relative paths are allowed');
    expect(() => readTar(archive(rawMember('dev', '3')))).toThrow('not a regular file or folder');
  });

  it('refuses a file over the size limit, too much in all, and a member cut short', () => {
    const MIB = 1024 * 1024;
    const members = (count: number) => writeTar(Array.from({ length: count }, (_, index) => ({ path: `f${index}`, kind: 'file' as const, executable: false, content: Buffer.alloc(MIB) })));
    const small = { files: 1_000, fileBytes: MIB / 2, totalBytes: 500 * MIB };
    expect(() => readTar(members(1), small)).toThrow("the artifact's f0 is over 0.5 MiB");
    expect(() => readTar(members(3), { files: 1_000, fileBytes: 100 * MIB, totalBytes: 2 * MIB })).toThrow('the artifact is over 2 MiB in all');
    expect(() => readTar(archive(rawMember('big.bin', '0', '', 100 * MIB + 1)))).toThrow('the artifact is cut short: a member holds less than its header says');
  });

  it('refuses more than 1,000 files', () => {
    const members = Array.from({ length: 1001 }, (_, index) => ({ path: `f${index}`, kind: 'file' as const, executable: false, content: Buffer.from('') }));
    expect(() => readTar(writeTar(members))).toThrow('the artifact holds more than 1000 files');
  });
});
