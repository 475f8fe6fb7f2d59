import { describe, expect, it } from 'vitest'
import { ApiError } from './errors'
import type { AuthLoginData, AuthLoginExResponse } from './types'
import {
  CHOICE_STORAGE, asksMechanisms, attemptLogin, canSubmit, keyRisk, loginData, loginOutcome, loginRefusal, rememberChoice, rememberedChoice,
  type LoginApi, type LoginForm,
} from './login'

const password: LoginForm = { mechanism: 'PASSWORD_PLAIN', username: ' truenas_admin ', secret: ' s3cret ' }
const key: LoginForm = { mechanism: 'API_KEY_PLAIN', username: 'root', secret: ' 1-abc \n' }

/** A server answering auth.login_ex with `answer` (or failing it with `error`), recording every call. */
function server(answer: AuthLoginExResponse | Error, choices: string[] | Error = ['PASSWORD_PLAIN', 'API_KEY_PLAIN']) {
  const calls: (AuthLoginData | 'mechanism_choices')[] = []
  const api: LoginApi = {
    async login(data) {
      calls.push(data)
      if (answer instanceof Error) throw answer
      return answer
    },
    async mechanismChoices() {
      calls.push('mechanism_choices')
      if (choices instanceof Error) throw choices
      return choices
    },
  }
  return { api, calls }
}

// tengig serve's answer today to PASSWORD_PLAIN: its AuthLoginExArgs has only API_KEY_PLAIN.
const schemaRefusal = new ApiError('auth.login_ex', -32602, 'Invalid params', {
  errname: 'EINVAL',
  extra: [['login_data.mechanism', "Input should be 'API_KEY_PLAIN'", 22], ['login_data.api_key', 'Field required', 22],
    ['login_data.password', 'Extra inputs are not permitted', 22]],
})

describe('loginData', () => {
  it('sends PASSWORD_PLAIN with the password as typed and the username trimmed', () => {
    expect(loginData(password)).toEqual({ mechanism: 'PASSWORD_PLAIN', username: 'truenas_admin', password: ' s3cret ' })
  })
  it('sends API_KEY_PLAIN with the key trimmed (a pasted key often ends in a newline)', () => {
    expect(loginData(key)).toEqual({ mechanism: 'API_KEY_PLAIN', username: 'root', api_key: '1-abc' })
  })
  it('needs a username and a secret', () => {
    expect(canSubmit(password)).toBe(true)
    expect(canSubmit({ ...password, username: '  ' })).toBe(false)
    expect(canSubmit({ ...password, secret: '' })).toBe(false)
    expect(canSubmit({ ...key, secret: '  ' })).toBe(false)
  })
})

describe('loginOutcome', () => {
  it('logs in on SUCCESS only, as the user the server names', () => {
    expect(loginOutcome(password, { response_type: 'SUCCESS', user_info: { username: 'admin2' }, authenticator: 'LEVEL_1' }))
      .toEqual({ ok: true, username: 'admin2' })
    expect(loginOutcome(password, { response_type: 'SUCCESS', user_info: null, authenticator: 'LEVEL_1' }))
      .toEqual({ ok: true, username: 'truenas_admin' })
  })
  it('says a refused password or key in words', () => {
    expect(loginOutcome(password, { response_type: 'AUTH_ERR' }))
      .toEqual({ ok: false, reason: 'Wrong username or password: the server refused to log in truenas_admin.' })
    expect(loginOutcome(key, { response_type: 'AUTH_ERR' }))
      .toEqual({ ok: false, reason: 'Wrong username or API key: the server refused to log in root.' })
  })
  it('says a server that offers no password login refused the mechanism, not the password', () => {
    const outcome = loginOutcome(password, { response_type: 'AUTH_ERR' }, ['API_KEY_PLAIN'])
    expect(outcome).toEqual({ ok: false, reason: expect.stringMatching(/^This server does not log in with a password \(it takes: API key\): choose “API key”/) })
    expect(loginOutcome(password, { response_type: 'AUTH_ERR' }, ['PASSWORD_PLAIN', 'API_KEY_PLAIN']))
      .toMatchObject({ reason: expect.stringMatching(/^Wrong username or password/) })
  })
  it('never treats EXPIRED, OTP_REQUIRED or REDIRECT as logged in, and says which it was', () => {
    expect(loginOutcome(password, { response_type: 'EXPIRED' }))
      .toEqual({ ok: false, reason: expect.stringMatching(/^The password of truenas_admin has expired/) })
    expect(loginOutcome(key, { response_type: 'EXPIRED' }))
      .toEqual({ ok: false, reason: expect.stringMatching(/^This API key of root has expired or was revoked \(TrueNAS revokes a key sent over plain http\)/) })
    expect(loginOutcome(password, { response_type: 'OTP_REQUIRED', username: 'truenas_admin' }))
      .toEqual({ ok: false, reason: expect.stringMatching(/^truenas_admin has two-factor authentication: .*one-time password/) })
    expect(loginOutcome(password, { response_type: 'REDIRECT', urls: ['https://nas-b/'] }))
      .toEqual({ ok: false, reason: 'The server sends this login elsewhere (https://nas-b/): open the panel there.' })
  })
  it('does not log in on an answer it does not know', () => {
    const odd = { response_type: 'MAYBE' } as unknown as AuthLoginExResponse
    expect(loginOutcome(password, odd)).toEqual({ ok: false, reason: expect.stringContaining('"MAYBE", which this panel does not know') })
  })
})

describe('loginRefusal', () => {
  it('reads a schema that has no PASSWORD_PLAIN as "use an API key"', () => {
    expect(loginRefusal(password, schemaRefusal)).toMatch(/^This server does not log in with a password \(it takes: API key\)/)
  })
  it('leaves other errors (and API-key logins) to the general error words', () => {
    expect(loginRefusal(key, schemaRefusal)).toBeNull()
    expect(loginRefusal(password, new ApiError('auth.login_ex', -32001, 'boom', { errname: 'EFAULT' }))).toBeNull()
    expect(loginRefusal(password, new Error('socket'))).toBeNull()
  })
})

describe('attemptLogin', () => {
  it('logs in with one call when the server says SUCCESS', async () => {
    const { api, calls } = server({ response_type: 'SUCCESS', user_info: null, authenticator: 'LEVEL_1' })
    await expect(attemptLogin(api, password)).resolves.toEqual({ ok: true, username: 'truenas_admin' })
    expect(calls).toEqual([{ mechanism: 'PASSWORD_PLAIN', username: 'truenas_admin', password: ' s3cret ' }])
  })
  it('after a refused password asks what the server offers, to say the right thing', async () => {
    const truenas = server({ response_type: 'AUTH_ERR' })
    await expect(attemptLogin(truenas.api, password)).resolves.toMatchObject({ ok: false, reason: expect.stringMatching(/^Wrong username or password/) })
    expect(truenas.calls.at(-1)).toBe('mechanism_choices')
    const tengigServe = server({ response_type: 'AUTH_ERR' }, ['API_KEY_PLAIN'])
    await expect(attemptLogin(tengigServe.api, password)).resolves.toMatchObject({ reason: expect.stringMatching(/^This server does not log in with a password/) })
  })
  it('says "wrong password" when the server cannot say what it offers', async () => {
    const { api } = server({ response_type: 'AUTH_ERR' }, new ApiError('auth.mechanism_choices', -32601, 'Method not found'))
    await expect(attemptLogin(api, password)).resolves.toMatchObject({ reason: expect.stringMatching(/^Wrong username or password/) })
  })
  it('does not ask a TrueNAS (its auth.mechanism_choices fails before login), which is told by its plugin route', async () => {
    const { api, calls } = server({ response_type: 'AUTH_ERR' })
    await expect(attemptLogin(api, password, false)).resolves.toMatchObject({ reason: expect.stringMatching(/^Wrong username or password/) })
    expect(calls).toHaveLength(1)
    expect(asksMechanisms({ pathname: '/_plugins/tengig/' })).toBe(false)
    expect(asksMechanisms({ pathname: '/' })).toBe(true)
  })
  it('does not ask after a refused key', async () => {
    const { api, calls } = server({ response_type: 'AUTH_ERR' })
    await expect(attemptLogin(api, key)).resolves.toMatchObject({ reason: expect.stringMatching(/^Wrong username or API key/) })
    expect(calls).toHaveLength(1)
  })
  it('turns tengig serve’s schema refusal of PASSWORD_PLAIN into words and rethrows any other error', async () => {
    await expect(attemptLogin(server(schemaRefusal).api, password)).resolves.toMatchObject({ ok: false, reason: expect.stringMatching(/choose “API key”/) })
    const other = new ApiError('auth.login_ex', -32001, 'boom')
    await expect(attemptLogin(server(other).api, password)).rejects.toBe(other)
  })
})

describe('remembering the choice', () => {
  class Memory {
    items = new Map<string, string>()
    getItem(k: string) {
      return this.items.get(k) ?? null
    }
    setItem(k: string, v: string) {
      this.items.set(k, v)
    }
  }

  it('keeps the mechanism and the username, never the password or the key', () => {
    const storage = new Memory()
    rememberChoice(storage, password)
    expect(rememberedChoice(storage)).toEqual({ mechanism: 'PASSWORD_PLAIN', username: 'truenas_admin' })
    expect([...storage.items.values()].join()).not.toContain('s3cret')
    rememberChoice(storage, key)
    expect(rememberedChoice(storage)).toEqual({ mechanism: 'API_KEY_PLAIN', username: 'root' })
    expect([...storage.items.values()].join()).not.toContain('1-abc')
  })
  it('starts with a password login, as TrueNAS does, when nothing (or garbage) is stored', () => {
    const storage = new Memory()
    expect(rememberedChoice(storage)).toEqual({ mechanism: 'PASSWORD_PLAIN', username: '' })
    storage.setItem(CHOICE_STORAGE, '{not json')
    expect(rememberedChoice(storage)).toEqual({ mechanism: 'PASSWORD_PLAIN', username: '' })
    storage.setItem(CHOICE_STORAGE, JSON.stringify({ mechanism: 'OTP_TOKEN', username: 7 }))
    expect(rememberedChoice(storage)).toEqual({ mechanism: 'PASSWORD_PLAIN', username: '' })
  })
})

describe('keyRisk', () => {
  const at = (url: string) => {
    const u = new URL(url)
    return { protocol: u.protocol, hostname: u.hostname, pathname: u.pathname }
  }
  it('warns where TrueNAS would revoke a key: its plugin route over plain http from another machine', () => {
    expect(keyRisk(at('http://nas.local/_plugins/tengig/'))).toMatch(/TrueNAS revokes an API key sent that way/)
    expect(keyRisk(at('http://192.168.1.5:81/_plugins/tengig/'))).not.toBeNull()
  })
  it('is quiet over https, on this machine, and on tengig serve (which revokes nothing)', () => {
    expect(keyRisk(at('https://nas.local/_plugins/tengig/'))).toBeNull()
    expect(keyRisk(at('http://127.0.0.1:6000/_plugins/tengig/'))).toBeNull()
    expect(keyRisk(at('http://localhost/_plugins/tengig/'))).toBeNull()
    expect(keyRisk(at('http://[::1]/_plugins/tengig/'))).toBeNull()
    expect(keyRisk(at('http://nas.local:8610/'))).toBeNull()
  })
})
