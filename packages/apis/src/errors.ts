/** Typed error families of @switchyard/apis; each carries a stable `code`, the offending value and where it was found. */

/** Base class: `code` is stable across releases, `path` names the field (dotted, with [i] indexes). */
export abstract class ApisError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    /** Field path of the offending value, e.g. `rules[0].from.ipBlocks[1].cidr`. */
    readonly path: string,
    /** The offending value. */
    readonly value: unknown,
  ) {
    super(path ? `${path}: ${message}` : message);
    this.name = new.target.name;
  }
}

/** Codes of {@link ControlplaneCodecError}. */
export type ControlplaneCodecErrorCode =
  | 'INVALID_IP'
  | 'INVALID_CIDR'
  | 'OUT_OF_RANGE'
  | 'INVALID_ENUM'
  | 'MISSING_FIELD'
  | 'MALFORMED_MESSAGE';

/** Conversion between the TS controlplane model and its protobuf messages failed. */
export class ControlplaneCodecError extends ApisError<ControlplaneCodecErrorCode> {}

/** Codes of {@link FramingError}. */
export type FramingErrorCode = 'MALFORMED_LENGTH' | 'FRAME_TOO_LARGE' | 'TRUNCATED';

/** A length-delimited stream was malformed. `path` is `offset <n>` of the stream. */
export class FramingError extends ApisError<FramingErrorCode> {
  constructor(
    code: FramingErrorCode,
    message: string,
    /** Byte offset in the stream where the bad frame starts. */
    readonly offset: number,
    value: unknown,
  ) {
    super(code, message, `offset ${offset}`, value);
  }
}

/** Codes of {@link ConfigError}. */
export type ConfigErrorCode = 'INVALID_TYPE' | 'INVALID_VALUE' | 'NOT_AN_OBJECT';

/** An agent/controller configuration value had the wrong type or an invalid value. */
export class ConfigError extends ApisError<ConfigErrorCode> {}

/** Codes of {@link ManifestError}. */
export type ManifestErrorCode = 'UNKNOWN_KIND' | 'UNSERVED_VERSION' | 'NOT_AN_OBJECT';

/** A manifest could not be matched to a served kind/version. */
export class ManifestError extends ApisError<ManifestErrorCode> {}
