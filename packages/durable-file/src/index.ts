/**
 * @switchyard/durable-file: replace a file so that the new content survives a crash or a power
 * loss once the call returns. write-file-atomic writes a temporary file, fsyncs it and renames
 * it over the target, but it does not fsync the directory, so the rename itself (the directory
 * entry) may still be lost on power failure; {@link writeFileDurableSync} adds that fsync.
 * @packageDocumentation
 */
import fs from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';

/** What failed: writing the content (temporary file, fsync, rename) or the fsync of the directory. */
export type DurableFileErrorCode = 'WRITE_FAILED' | 'DIRECTORY_SYNC_FAILED';

/** A durable write that did not complete; `file` is the target, `cause` the system error. */
export class DurableFileError extends Error {
  constructor(
    readonly code: DurableFileErrorCode,
    readonly file: string,
    options: { cause: unknown },
  ) {
    const what = code === 'WRITE_FAILED' ? 'cannot write' : 'cannot fsync the directory of';
    super(`${what} ${file}: ${options.cause instanceof Error ? options.cause.message : String(options.cause)}`, options);
    this.name = 'DurableFileError';
  }
}

export interface DurableWriteOptions {
  /**
   * Permission bits of the file. Default: those of the file it replaces, or 0o666 less the umask
   * for a new file (write-file-atomic's rule). Give it for secrets: keys want 0o600.
   */
  mode?: number;
}

/**
 * Replaces `file` with `data` (a string is written as UTF-8) atomically and durably.
 *
 * Guarantees, once it returns: readers see the old content or the new, whole, never a mix
 * (temporary file in the same directory, renamed over the target); the content is fsynced before
 * the rename; the directory holding the file (after following a symlink at `file`, as
 * write-file-atomic does) is fsynced after it, so the new name survives a power loss. When it
 * throws, the previous file is untouched if the failure came before the rename
 * (`WRITE_FAILED`); after `DIRECTORY_SYNC_FAILED` the new content is in place but may not be
 * durable. The temporary file is removed on failure. The directory must exist.
 *
 * Meant for state that must survive a restart (keys, certificates, caches, snapshots); sockets,
 * pid files and logs do not need it.
 * @throws DurableFileError
 */
export function writeFileDurableSync(file: string, data: string | Buffer, options: DurableWriteOptions = {}): void {
  try {
    writeFileAtomic.sync(file, data, { fsync: true, ...(options.mode !== undefined ? { mode: options.mode } : {}) });
  } catch (e) {
    throw new DurableFileError('WRITE_FAILED', file, { cause: e });
  }
  try {
    // write-file-atomic renamed into the directory of the resolved path.
    fsyncDirectorySync(path.dirname(fs.realpathSync(file)));
  } catch (e) {
    throw new DurableFileError('DIRECTORY_SYNC_FAILED', file, { cause: e });
  }
}

/**
 * fsyncs directory `dir`, so entries created, renamed or removed in it so far survive a power
 * loss (POSIX leaves that to an fsync of the directory, not of the file).
 */
export function fsyncDirectorySync(dir: string): void {
  const fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
