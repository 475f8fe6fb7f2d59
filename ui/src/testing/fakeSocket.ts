/** For specs: a WebSocket the test drives (frames sent are kept, answers pushed by hand). */
import { RpcClient, type SocketLike } from '../api/rpc'

export class FakeSocket implements SocketLike {
  readyState = 0
  sent: { jsonrpc?: string; id: number; method: string; params: unknown[] }[] = []
  onopen: ((ev: unknown) => void) | null = null
  onclose: ((ev: { code: number; reason: string }) => void) | null = null
  onerror: ((ev: unknown) => void) | null = null
  onmessage: ((ev: { data: unknown }) => void) | null = null
  send(data: string) {
    this.sent.push(JSON.parse(data))
  }
  close(code = 1000, reason = '') {
    this.readyState = 3
    this.onclose?.({ code, reason })
  }
  open() {
    this.readyState = 1
    this.onopen?.({})
  }
  push(frame: unknown) {
    this.onmessage?.({ data: JSON.stringify(frame) })
  }
  /** The result of the last call sent. */
  answer(result: unknown) {
    this.push({ jsonrpc: '2.0', id: this.sent.at(-1)!.id, result })
  }
}

/** An RpcClient connected through a FakeSocket. */
export async function connected(): Promise<[RpcClient, FakeSocket]> {
  const socket = new FakeSocket()
  const client = new RpcClient('ws://nas/api/current', () => socket)
  const opening = client.connect()
  socket.open()
  await opening
  return [client, socket]
}
