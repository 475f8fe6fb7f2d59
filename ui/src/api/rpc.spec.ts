import { describe, expect, it } from 'vitest'
import { ApiError, ConnectionError, JobFailedError } from './errors'
import { JobWatcher, jobOutcome, mergeJobUpdate } from './jobs'
import { RpcClient, apiUrlFromLocation } from './rpc'
import { connected, FakeSocket } from '../testing/fakeSocket'
import type { Job } from './types'

describe('RpcClient', () => {
  it('sends positional params and resolves with the result of the matching id', async () => {
    const [client, socket] = await connected()
    const answer = client.call('core.ping')
    expect(socket.sent[0]).toEqual({ jsonrpc: '2.0', id: 1, method: 'core.ping', params: [] })
    socket.push({ jsonrpc: '2.0', id: 1, result: 'pong' })
    await expect(answer).resolves.toBe('pong')
  })

  it('turns an error answer into an ApiError with errno name and field errors', async () => {
    const [client, socket] = await connected()
    const answer = client.call('tengig.results.query', [{ limit: 0 }])
    socket.push({
      jsonrpc: '2.0', id: 1,
      error: { code: -32602, message: 'Invalid params', data: { error: 22, errname: 'EINVAL', reason: 'x',
        extra: [['options.limit', 'Input should be greater than or equal to 1', 22]] } },
    })
    const err = (await answer.catch((e) => e)) as ApiError
    expect(err).toBeInstanceOf(ApiError)
    expect(err.code).toBe(-32602)
    expect(err.fieldErrors).toEqual([['options.limit', 'Input should be greater than or equal to 1']])
  })

  it('fails pending calls when the connection drops, and refuses calls when closed', async () => {
    const [client, socket] = await connected()
    const answer = client.call('core.ping')
    socket.close(1006, '')
    await expect(answer).rejects.toBeInstanceOf(ConnectionError)
    await expect(client.call('core.ping')).rejects.toThrow(/Not connected/)
  })

  it('says the server is unreachable when the socket never opens', async () => {
    const socket = new FakeSocket()
    const client = new RpcClient('ws://nas/api/current', () => socket)
    const opening = client.connect()
    socket.close(1006)
    await expect(opening).rejects.toThrow(/Cannot reach the tengig API at ws:\/\/nas\/api\/current/)
  })

  it('routes collection_update events to the subscribers of that collection', async () => {
    const [client, socket] = await connected()
    const seen: unknown[] = []
    const subscribed = client.subscribe('core.get_jobs', (u) => seen.push(u.id))
    expect(socket.sent[0]).toMatchObject({ method: 'core.subscribe', params: ['core.get_jobs'] })
    socket.push({ jsonrpc: '2.0', id: 1, result: 'sub-1' })
    await subscribed
    socket.push({ jsonrpc: '2.0', method: 'collection_update', params: { msg: 'added', collection: 'core.get_jobs', id: 7, fields: {} } })
    socket.push({ jsonrpc: '2.0', method: 'collection_update', params: { msg: 'added', collection: 'other', id: 8, fields: {} } })
    expect(seen).toEqual([7])
  })
})

describe('apiUrlFromLocation', () => {
  const from = (href: string) => apiUrlFromLocation(new URL(href))

  it('uses /api/current on the page host, wss under https', () => {
    expect(from('http://127.0.0.1:8610/')).toBe('ws://127.0.0.1:8610/api/current')
    expect(from('https://truenas.local/')).toBe('wss://truenas.local/api/current')
    expect(from('http://[::1]:8610/')).toBe('ws://[::1]:8610/api/current')
  })

  it('is the same behind TrueNAS’s /_plugins/tengig/ route (the path does not matter)', () => {
    expect(from('https://nas:8443/_plugins/tengig/')).toBe('wss://nas:8443/api/current')
  })

  it('never leaves the page’s own server, whatever a link adds (?api= named one once: issue 23)', () => {
    const elsewhere = encodeURIComponent('ws://127.0.0.1:9/api/current')
    for (const href of [
      `http://nas.local/?api=${elsewhere}`,
      'http://nas.local/?api=ws://127.0.0.1:9/api/current',
      `https://nas.local/_plugins/tengig/?api=${encodeURIComponent('wss://evil.example/api/current')}`,
      `http://nas.local/#/verdict/3?api=${elsewhere}`,
      'http://user:pw@nas.local/?url=ws://evil.example&host=evil.example',
    ]) {
      expect(from(href)).toBe(`${href.startsWith('https') ? 'wss' : 'ws'}://nas.local/api/current`)
    }
  })
})

const baseJob: Job = {
  id: 3, method: 'tengig.bench.run', progress: { percent: 0, description: null, extra: null },
  state: 'RUNNING', result: null, error: null,
}

describe('jobs', () => {
  it('merges changed fields into the known job and forgets removed ones', () => {
    const added = mergeJobUpdate(undefined, { msg: 'added', collection: 'core.get_jobs', id: 3, fields: { ...baseJob } })
    const changed = mergeJobUpdate(added, { msg: 'changed', collection: 'core.get_jobs', id: 3,
      fields: { progress: { percent: 40, description: 'iperf3', extra: null } } })
    expect(changed?.progress.percent).toBe(40)
    expect(changed?.method).toBe('tengig.bench.run')
    expect(mergeJobUpdate(changed, { msg: 'removed', collection: 'core.get_jobs', id: 3 })).toBeUndefined()
  })

  it('gives the error of a failed job, with field errors, and never a result', () => {
    const failed: Job = { ...baseJob, state: 'FAILED', result: { run_id: 1 }, error: '[EINVAL] request.target: no such target',
      exc_info: { type: 'VALIDATION', errno: null, extra: [['request.target', 'no such target', 22]] } }
    const outcome = jobOutcome(failed)
    expect(outcome.ok).toBe(false)
    if (!outcome.ok) {
      expect(outcome.error).toBeInstanceOf(JobFailedError)
      expect(outcome.error.fieldErrors).toEqual([['request.target', 'no such target']])
    }
    expect(jobOutcome({ ...baseJob, state: 'SUCCESS', result: 5 })).toEqual({ ok: true, result: 5 })
  })

  it('keeps events that arrive before the job id is known', async () => {
    const [client, socket] = await connected()
    const watcher = new JobWatcher(client)
    const started = watcher.start()
    socket.push({ jsonrpc: '2.0', id: 1, result: 'sub' })
    await started
    socket.push({ jsonrpc: '2.0', method: 'collection_update',
      params: { msg: 'added', collection: 'core.get_jobs', id: 3, fields: { ...baseJob, state: 'SUCCESS', result: { run_id: 9 } } } })
    const percents: (number | null)[] = []
    await expect(watcher.follow(3, (j) => percents.push(j.progress.percent))).resolves.toEqual({ run_id: 9 })
    expect(percents).toEqual([0])
  })
})
