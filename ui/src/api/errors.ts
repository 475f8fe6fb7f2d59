/**
 * The panel's one error tree, translated at one boundary (the RPC client):
 *   PanelError
 *   ├─ ApiError         the server answered with a JSON-RPC error (code, errno, field errors)
 *   ├─ JobFailedError   a job ended FAILED or ABORTED (its error text, errno)
 *   ├─ ConnectionError  no answer: the websocket could not open, closed, or timed out
 *   └─ LoginRefusedError auth.login_ex answered, but not SUCCESS (its words say why)
 * `describeError` turns any of them (or anything thrown) into words for a person.
 */

export interface RpcErrorData {
  error?: number | null
  errname?: string | null
  reason?: string | null
  trace?: unknown
  extra?: [string, string, number?][] | null
}

export class PanelError extends Error {}

export class ApiError extends PanelError {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data: RpcErrorData | null = null,
  ) {
    super(message)
    this.name = 'ApiError'
  }

  get errname(): string | null {
    return this.data?.errname ?? null
  }

  /** [field path, message] per invalid field (-32602), e.g. ['request.target', 'no such target']. */
  get fieldErrors(): [string, string][] {
    return (this.data?.extra ?? []).map(([field, msg]) => [field, msg])
  }
}

export class JobFailedError extends PanelError {
  constructor(
    readonly method: string,
    readonly state: 'FAILED' | 'ABORTED',
    message: string,
    readonly errname: string | null = null,
    readonly fieldErrors: [string, string][] = [],
  ) {
    super(message)
    this.name = 'JobFailedError'
  }
}

export class ConnectionError extends PanelError {
  constructor(message: string) {
    super(message)
    this.name = 'ConnectionError'
  }
}

export class LoginRefusedError extends PanelError {
  constructor(message: string) {
    super(message)
    this.name = 'LoginRefusedError'
  }
}

export const RPC_CODES = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  tooManyCalls: -32000,
  callError: -32001,
} as const

function fieldLines(fields: [string, string][]): string {
  return fields.map(([field, msg]) => `${field || '(request)'}: ${msg}`).join('; ')
}

/** One sentence (or a few) saying what failed and, where known, what to do. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === RPC_CODES.methodNotFound) {
      return `This server has no method ${err.method}: it runs a tengig without it; update tengig on the server.`
    }
    if (err.errname === 'ENOTAUTHENTICATED') {
      return 'Not logged in (or the session ended): log in again.'
    }
    if (err.code === RPC_CODES.invalidParams && err.fieldErrors.length) {
      return `${err.method} refused the input: ${fieldLines(err.fieldErrors)}`
    }
    if (err.code === RPC_CODES.tooManyCalls) {
      return `Too many calls at once on this connection (${err.method}); wait for the running ones and retry.`
    }
    const name = err.errname ? ` [${err.errname}]` : ''
    return `${err.method} failed${name}: ${err.data?.reason || err.message}`
  }
  if (err instanceof JobFailedError) {
    if (err.state === 'ABORTED') return `${err.method} was aborted: ${err.message}`
    const fields = err.fieldErrors.length ? ` (${fieldLines(err.fieldErrors)})` : ''
    const name = err.errname ? ` [${err.errname}]` : ''
    return `${err.method} failed${name}: ${err.message}${fields}`
  }
  if (err instanceof ConnectionError || err instanceof LoginRefusedError) return err.message
  if (err instanceof Error) return `Unexpected error: ${err.message}`
  return `Unexpected error: ${String(err)}`
}
