// writeFileDurableSync: content, mode, atomic replacement, and the directory fsync after the rename.
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DurableFileError, fsyncDirectorySync, writeFileDurableSync } from '../src/index';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(join(tmpdir(), 'durable-file-'));
});
afterEach(() => {
  jest.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The opens of `target` as a directory: the descriptor and when it was opened (descriptor numbers are reused). */
function directoryOpens(open: jest.SpyInstance, target: string): { fd: number; order: number }[] {
  return open.mock.calls.flatMap((call, i) => {
    const flags = call[1] as unknown;
    const result = open.mock.results[i] as jest.MockResult<number>;
    const isDir = call[0] === target && typeof flags === 'number' && (flags & fs.constants.O_DIRECTORY) !== 0;
    return isDir && result.type === 'return' ? [{ fd: result.value, order: open.mock.invocationCallOrder[i] as number }] : [];
  });
}
const directoryFds = (open: jest.SpyInstance, target: string): number[] => directoryOpens(open, target).map((o) => o.fd);

describe('writeFileDurableSync', () => {
  it('writes the content, string as UTF-8 or bytes, with the mode it is given', () => {
    const file = join(dir, 'key');
    writeFileDurableSync(file, 'géneve\n', { mode: 0o600 });
    expect(fs.readFileSync(file, 'utf8')).toBe('géneve\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    writeFileDurableSync(file, Buffer.from([1, 2, 3]), { mode: 0o644 });
    expect([...fs.readFileSync(file)]).toEqual([1, 2, 3]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
  });

  it('keeps the replaced file mode when none is given', () => {
    const file = join(dir, 'state.json');
    writeFileDurableSync(file, '{}', { mode: 0o640 });
    writeFileDurableSync(file, '{"a":1}');
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
  });

  it('replaces the file by a rename: a reader holding the old file keeps its content, no temporary file stays', () => {
    const file = join(dir, 'objects.json');
    writeFileDurableSync(file, 'old');
    const before = fs.statSync(file).ino;
    const fd = fs.openSync(file, 'r');
    try {
      writeFileDurableSync(file, 'new');
      expect(fs.readFileSync(fd, 'utf8')).toBe('old');
    } finally {
      fs.closeSync(fd);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    expect(fs.statSync(file).ino).not.toBe(before);
    expect(fs.readdirSync(dir)).toEqual(['objects.json']);
  });

  it('fsyncs the directory after the rename', () => {
    const file = join(dir, 'cert.pem');
    const open = jest.spyOn(fs, 'openSync');
    const fsync = jest.spyOn(fs, 'fsyncSync');
    const rename = jest.spyOn(fs, 'renameSync');
    writeFileDurableSync(file, 'pem');
    const [opened] = directoryOpens(open, fs.realpathSync(dir));
    expect(opened).toBeDefined();
    const dirSync = fsync.mock.calls.findIndex(([fd], i) => fd === opened?.fd && (fsync.mock.invocationCallOrder[i] as number) > (opened?.order as number));
    expect(dirSync).toBeGreaterThanOrEqual(0);
    expect(rename).toHaveBeenCalledTimes(1);
    expect(fsync.mock.invocationCallOrder[dirSync]).toBeGreaterThan(rename.mock.invocationCallOrder[0] as number);
    // The temporary file's content was fsynced before the rename, too.
    expect(fsync.mock.invocationCallOrder.some((order, i) => i !== dirSync && order < (rename.mock.invocationCallOrder[0] as number))).toBe(true);
  });

  it('fsyncs the directory of the target when the path is a symlink', () => {
    const real = fs.mkdtempSync(join(tmpdir(), 'durable-file-real-'));
    try {
      fs.writeFileSync(join(real, 'target'), '');
      fs.symlinkSync(join(real, 'target'), join(dir, 'link'));
      const open = jest.spyOn(fs, 'openSync');
      writeFileDurableSync(join(dir, 'link'), 'x');
      expect(fs.readFileSync(join(real, 'target'), 'utf8')).toBe('x');
      expect(directoryFds(open, fs.realpathSync(real))).toHaveLength(1);
    } finally {
      fs.rmSync(real, { recursive: true, force: true });
    }
  });

  it('fails with WRITE_FAILED naming the file, and leaves the previous file whole', () => {
    const file = join(dir, 'snapshot');
    writeFileDurableSync(file, 'previous');
    jest.spyOn(fs, 'renameSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    });
    let err: unknown;
    try {
      writeFileDurableSync(file, 'next');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DurableFileError);
    expect(err).toMatchObject({ code: 'WRITE_FAILED', file, message: `cannot write ${file}: ENOSPC: no space left on device` });
    expect(fs.readFileSync(file, 'utf8')).toBe('previous');
    expect(fs.readdirSync(dir)).toEqual(['snapshot']);
  });

  it('fails with DIRECTORY_SYNC_FAILED when the directory cannot be fsynced', () => {
    const file = join(dir, 'k');
    const fsync = jest.spyOn(fs, 'fsyncSync');
    const open = jest.spyOn(fs, 'openSync');
    fsync.mockImplementation((fd) => {
      if (directoryFds(open, fs.realpathSync(dir)).includes(fd)) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    expect(() => writeFileDurableSync(file, 'x')).toThrow(expect.objectContaining({ code: 'DIRECTORY_SYNC_FAILED', file }));
  });
});

describe('fsyncDirectorySync', () => {
  it('opens the directory read-only, fsyncs and closes it', () => {
    const open = jest.spyOn(fs, 'openSync');
    const fsync = jest.spyOn(fs, 'fsyncSync');
    const close = jest.spyOn(fs, 'closeSync');
    fsyncDirectorySync(dir);
    const [fd] = directoryFds(open, dir);
    expect(fsync).toHaveBeenCalledWith(fd);
    expect(close).toHaveBeenCalledWith(fd);
  });

  it('throws for a path that is not a directory', () => {
    fs.writeFileSync(join(dir, 'f'), '');
    expect(() => fsyncDirectorySync(join(dir, 'f'))).toThrow(/ENOTDIR/);
  });
});
