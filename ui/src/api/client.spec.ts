import { describe, expect, it } from 'vitest'
import { TengigApi } from './client'
import { ApiError } from './errors'
import { connected, FakeSocket } from '../testing/fakeSocket'

async function api(): Promise<[TengigApi, FakeSocket]> {
  const [rpc, socket] = await connected()
  return [new TengigApi(rpc), socket]
}

describe('TengigApi.startLaggVerify', () => {
  const request = { nics: [], platform: 'linux' as const, topology: 'lacp-switch' as const, goal: 'aggregate-many-clients' as const }

  it('calls tengig.lagg.verify with the request and the options, and answers the job id', async () => {
    const [client, socket] = await api()
    const started = client.startLaggVerify(request, { client: 'desk', seconds: 2, omit: 1 })
    expect(socket.sent.at(-1)).toMatchObject({ method: 'tengig.lagg.verify', params: [request, { client: 'desk', seconds: 2, omit: 1 }] })
    socket.answer(12)
    await expect(started).resolves.toBe(12)
  })

  it('refuses an answer that is not a job id', async () => {
    const [client, socket] = await api()
    const started = client.startLaggVerify(request, {})
    socket.answer({ client: 'desk' })
    await expect(started).rejects.toBeInstanceOf(ApiError)
  })
})

describe('TengigApi.login', () => {
  it('sends the login data as is and subscribes to job events only after SUCCESS', async () => {
    const [client, socket] = await api()
    const data = { mechanism: 'PASSWORD_PLAIN' as const, username: 'truenas_admin', password: 'pw' }
    const refused = client.login(data)
    expect(socket.sent.at(-1)).toMatchObject({ method: 'auth.login_ex', params: [data] })
    socket.answer({ response_type: 'OTP_REQUIRED', username: 'truenas_admin' })
    await expect(refused).resolves.toEqual({ response_type: 'OTP_REQUIRED', username: 'truenas_admin' })
    expect(socket.sent.map((f) => f.method)).toEqual(['auth.login_ex'])

    const accepted = client.login(data)
    socket.answer({ response_type: 'SUCCESS', user_info: null, authenticator: 'LEVEL_1' })
    await Promise.resolve()
    await Promise.resolve()
    expect(socket.sent.at(-1)).toMatchObject({ method: 'core.subscribe', params: ['core.get_jobs'] })
    socket.answer('sub-1')
    await expect(accepted).resolves.toMatchObject({ response_type: 'SUCCESS' })
  })

  it('asks auth.mechanism_choices without logging in', async () => {
    const [client, socket] = await api()
    const choices = client.mechanismChoices()
    expect(socket.sent.at(-1)).toMatchObject({ method: 'auth.mechanism_choices', params: [] })
    socket.answer(['API_KEY_PLAIN'])
    await expect(choices).resolves.toEqual(['API_KEY_PLAIN'])
  })
})

describe('TengigApi.exportRun', () => {
  it('asks tengig.results.export for one run in the format (the contract: format, ids) and answers the text', async () => {
    const [client, socket] = await api()
    const md = client.exportRun(7, 'md')
    expect(socket.sent.at(-1)).toMatchObject({ method: 'tengig.results.export', params: ['md', [7]] })
    socket.answer('# tengig run 7\n')
    await expect(md).resolves.toBe('# tengig run 7\n')
  })
})
