/**
 * JSON-RPC 2.0 over one websocket, as TrueNAS middleware speaks it (docs/truenas-api.md §2): positional params,
 * `collection_update` notifications for subscriptions. Every failure leaves here as a PanelError.
 */
import { ApiError, ConnectionError, type RpcErrorData } from './errors'

export interface CollectionUpdate {
  msg: 'added' | 'changed' | 'removed'
  collection: string
  id: unknown
  fields?: Record<string, unknown>
}

/** The part of the browser's WebSocket the client uses (a test hands in a fake). */
export interface SocketLike {
  readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  onopen: ((ev: unknown) => void) | null
  onclose: ((ev: { code: number; reason: string }) => void) | null
  onerror: ((ev: unknown) => void) | null
  onmessage: ((ev: { data: unknown }) => void) | null
}

export type SocketFactory = (url: string) => SocketLike

interface Pending {
  method: string
  resolve: (value: unknown) => void
  reject: (err: unknown) => void
  timer: ReturnType<typeof setTimeout> | null
}

const OPEN = 1
export const DEFAULT_TIMEOUT_MS = 30_000

export class RpcClient {
  private socket: SocketLike | null = null
  private nextId = 1
  private pending = new Map<number, Pending>()
  private listeners = new Map<string, Set<(update: CollectionUpdate) => void>>()
  private closeListeners = new Set<(err: ConnectionError) => void>()

  constructor(
    readonly url: string,
    private readonly factory: SocketFactory = (u) => new WebSocket(u) as unknown as SocketLike,
  ) {}

  get connected(): boolean {
    return this.socket?.readyState === OPEN
  }

  connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      let opened = false
      let socket: SocketLike
      try {
        socket = this.factory(this.url)
      } catch (exc) {
        reject(new ConnectionError(`Cannot open ${this.url}: ${(exc as Error).message}`))
        return
      }
      this.socket = socket
      socket.onopen = () => {
        opened = true
        resolve()
      }
      socket.onmessage = (ev) => this.receive(ev.data)
      socket.onerror = () => {
        /* onclose follows with the code; that is where the error is told */
      }
      socket.onclose = (ev) => {
        const err = opened
          ? new ConnectionError(`Lost the connection to ${this.url} (code ${ev.code}${ev.reason ? `: ${ev.reason}` : ''}).`)
          : new ConnectionError(`Cannot reach the tengig API at ${this.url} (code ${ev.code}); is the server running?`)
        this.socket = null
        this.failAll(err)
        if (!opened) reject(err)
        else this.closeListeners.forEach((listener) => listener(err))
      }
    })
  }

  close(): void {
    this.socket?.close(1000, 'bye')
  }

  onClose(listener: (err: ConnectionError) => void): () => void {
    this.closeListeners.add(listener)
    return () => this.closeListeners.delete(listener)
  }

  call<T>(method: string, params: unknown[] = [], timeoutMs: number | null = DEFAULT_TIMEOUT_MS): Promise<T> {
    const socket = this.socket
    if (!socket || socket.readyState !== OPEN) {
      return Promise.reject(new ConnectionError(`Not connected to ${this.url}; cannot call ${method}.`))
    }
    const id = this.nextId++
    return new Promise<T>((resolve, reject) => {
      const timer =
        timeoutMs === null
          ? null
          : setTimeout(() => {
              this.pending.delete(id)
              reject(new ConnectionError(`${method} got no answer within ${timeoutMs / 1000} s.`))
            }, timeoutMs)
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer })
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
  }

  /** core.subscribe(event); `listener` gets every collection_update of that collection. */
  async subscribe(event: string, listener: (update: CollectionUpdate) => void): Promise<() => void> {
    let set = this.listeners.get(event)
    if (!set) {
      set = new Set()
      this.listeners.set(event, set)
      await this.call<string>('core.subscribe', [event])
    }
    set.add(listener)
    return () => set!.delete(listener)
  }

  private receive(data: unknown): void {
    let frame: Record<string, unknown>
    try {
      frame = JSON.parse(String(data)) as Record<string, unknown>
    } catch {
      return // not JSON-RPC: nothing to route it to
    }
    if (frame.method === 'collection_update') {
      const update = frame.params as CollectionUpdate
      this.listeners.get(update.collection)?.forEach((listener) => listener(update))
      return
    }
    const pending = this.pending.get(frame.id as number)
    if (!pending) return
    this.pending.delete(frame.id as number)
    if (pending.timer) clearTimeout(pending.timer)
    if ('error' in frame && frame.error) {
      const e = frame.error as { code: number; message: string; data?: RpcErrorData | null }
      pending.reject(new ApiError(pending.method, e.code, e.message, e.data ?? null))
    } else {
      pending.resolve(frame.result)
    }
  }

  private failAll(err: ConnectionError): void {
    for (const [id, pending] of this.pending) {
      if (pending.timer) clearTimeout(pending.timer)
      pending.reject(err)
      this.pending.delete(id)
    }
  }
}

/**
 * Where the API is: the server that served this page, `/api/current` at its root, over wss when the
 * page came over https. Behind TrueNAS the panel lives at `/_plugins/tengig/` and the middleware answers
 * at `/api/current`; `tengig serve` answers there too. Nothing in the page's address (path, query,
 * fragment) can name another server: a login goes where the page came from, and nowhere else.
 */
export function apiUrlFromLocation(loc: { protocol: string; host: string }): string {
  const scheme = loc.protocol === 'https:' ? 'wss' : 'ws'
  return `${scheme}://${loc.host}/api/current`
}
