/**
 * fetch says only "fetch failed" when it gets no answer; the URL it tried and the system's reason
 * sit out of sight in its cause. The SDK and both command lines say them in the one wording here.
 */

interface SystemCause {
  code?: string;
  message?: string;
  /** One per address tried (IPv4 and IPv6 of one name), when every one failed. */
  errors?: { code?: string }[];
}

/** The system's code for a failure fetch reports (ECONNREFUSED, ENOTFOUND...), or the timeout's name. */
function failureCode(error: unknown): string | undefined {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return error.name;
  if (!(error instanceof TypeError) || typeof error.cause !== 'object' || error.cause === null) return undefined;
  const cause = error.cause as SystemCause;
  return cause.code ?? cause.errors?.find((each) => each.code)?.code;
}

/**
 * Why fetch got no answer, in words, or undefined when the failure is not the network's (a URL
 * fetch cannot parse, a refusal, a bug). The system's code is kept at the end, for searching.
 */
export function unreachableReason(error: unknown): string | undefined {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `no answer in time: is the server up, or overloaded? (${error.name}: ${error.message})`;
  if (!(error instanceof TypeError) || typeof error.cause !== 'object' || error.cause === null) return undefined;
  const code = failureCode(error);
  const said = `(${[code, (error.cause as SystemCause).message].filter(Boolean).join(': ')})`;
  switch (code) {
    case 'ERR_INVALID_URL':
      return undefined;
    case 'ECONNREFUSED':
      return `connection refused: nothing listens there; is the server running, and are the host and port right? ${said}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host name does not resolve (DNS): check the host in the URL ${said}`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `the connection timed out: is the host up, and the port open to you? ${said}`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to the host: check the network and the host in the URL ${said}`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `the connection was dropped before an answer came: did the server stop or restart? ${said}`;
    default:
      return `the connection failed ${said}`;
  }
}

/**
 * fetch's network failure, naming the URL it could not reach and why. A TypeError still, as
 * fetch's own is, so code that tells network failures apart by that keeps working; the original
 * error is its cause.
 */
export class UnreachableError extends TypeError {
  /** The system's code (ECONNREFUSED, ENOTFOUND...), or TimeoutError when no answer came in time. */
  readonly code: string | undefined;

  constructor(
    readonly url: string,
    reason: string,
    cause: unknown,
  ) {
    super(`could not reach ${url}: ${reason}`, { cause });
    this.name = 'UnreachableError';
    this.code = failureCode(cause);
  }
}

/** `error` as an UnreachableError naming `url`, or undefined when the failure is not the network's. */
export function unreachableError(url: string, error: unknown): UnreachableError | undefined {
  if (error instanceof UnreachableError) return error;
  const reason = unreachableReason(error);
  return reason === undefined ? undefined : new UnreachableError(url, reason, error);
}

/** A command line's advice after an UnreachableError: both take the server from --url or TESSERA_URL. */
export function howToNameTheServer(default_url: string): string {
  return `Name the server with --url BASE_URL or TESSERA_URL (the default is ${default_url}).`;
}
