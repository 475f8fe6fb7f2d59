/**
 * Logging in, as TrueNAS's own login does it: a username with a password (PASSWORD_PLAIN) or with an
 * API key (API_KEY_PLAIN), through auth.login_ex. Only the answer SUCCESS logs in; every other answer
 * (AUTH_ERR, EXPIRED, OTP_REQUIRED, REDIRECT, or one this panel does not know) is said in words.
 * What is remembered between visits is the chosen mechanism and the username, never the password.
 * An API key is not sent where TrueNAS would revoke it (its plugin route over plain http, keyRisk).
 */
import { ApiError, RPC_CODES } from './errors'
import type { AuthLoginData, AuthLoginExResponse, AuthMechanism } from './types'

export interface LoginForm {
  mechanism: AuthMechanism
  username: string
  /** The password or the API key, per the mechanism. */
  secret: string
}

export type LoginOutcome = { ok: true; username: string } | { ok: false; reason: string }

/** What attemptLogin needs of the server (TengigApi has both). */
export interface LoginApi {
  login(data: AuthLoginData): Promise<AuthLoginExResponse>
  mechanismChoices(): Promise<string[]>
}

export const MECHANISMS: readonly { value: AuthMechanism; label: string; test: string }[] = [
  { value: 'PASSWORD_PLAIN', label: 'Password', test: 'login-mechanism-password' },
  { value: 'API_KEY_PLAIN', label: 'API key', test: 'login-mechanism-api-key' },
]

export const DEFAULT_MECHANISM: AuthMechanism = 'PASSWORD_PLAIN'

/** A password is sent as typed (spaces are part of it); a username and a key are trimmed. */
export function loginData(form: LoginForm): AuthLoginData {
  const username = form.username.trim()
  return form.mechanism === 'PASSWORD_PLAIN'
    ? { mechanism: 'PASSWORD_PLAIN', username, password: form.secret }
    : { mechanism: 'API_KEY_PLAIN', username, api_key: form.secret.trim() }
}

export function canSubmit(form: LoginForm): boolean {
  const data = loginData(form)
  return data.username !== '' && (data.mechanism === 'PASSWORD_PLAIN' ? data.password !== '' : data.api_key !== '')
}

const secretName = (mechanism: AuthMechanism) => (mechanism === 'PASSWORD_PLAIN' ? 'password' : 'API key')

const MECHANISM_WORDS: Record<string, string> = {
  PASSWORD_PLAIN: 'password', API_KEY_PLAIN: 'API key', TOKEN_PLAIN: 'token', OTP_TOKEN: 'one-time password',
}

function passwordsNotTaken(offered: string[]): string {
  const words = offered.map((m) => MECHANISM_WORDS[m] ?? m).join(', ') || 'nothing'
  return `This server does not log in with a password (it takes: ${words}): `
    + 'choose “API key” and log in with a key (for tengig serve: tengig apikey create NAME).'
}

/**
 * The answer to auth.login_ex in words. `offered` is what auth.mechanism_choices said, when asked
 * (after a refused password): a server that offers no PASSWORD_PLAIN refused the mechanism, not the password.
 */
export function loginOutcome(form: LoginForm, answer: AuthLoginExResponse, offered: string[] | null = null): LoginOutcome {
  const username = form.username.trim()
  const what = secretName(form.mechanism)
  switch (answer.response_type) {
    case 'SUCCESS':
      return { ok: true, username: answer.user_info?.username || username }
    case 'AUTH_ERR':
      if (form.mechanism === 'PASSWORD_PLAIN' && offered && !offered.includes('PASSWORD_PLAIN')) {
        return { ok: false, reason: passwordsNotTaken(offered) }
      }
      return { ok: false, reason: `Wrong username or ${what}: the server refused to log in ${username}.` }
    case 'EXPIRED':
      return {
        ok: false,
        reason: form.mechanism === 'PASSWORD_PLAIN'
          ? `The password of ${username} has expired: set a new one in TrueNAS (Credentials → Users), then log in again.`
          : `This API key of ${username} has expired or was revoked (TrueNAS revokes a key sent over plain http): `
            + 'create a new one in TrueNAS (Credentials → API Keys).',
      }
    case 'OTP_REQUIRED':
      return {
        ok: false,
        reason: `${answer.username || username} has two-factor authentication: the server asks for a one-time password, `
          + 'which this panel does not ask for; log in with an API key instead.',
      }
    case 'REDIRECT':
      return {
        ok: false,
        reason: `The server sends this login elsewhere (${answer.urls.join(', ') || 'no address given'}): open the panel there.`,
      }
    default: {
      const unknown = (answer as { response_type?: unknown }).response_type
      return { ok: false, reason: `The server answered the login with ${JSON.stringify(unknown)}, which this panel does not know; not logged in.` }
    }
  }
}

/** Words for an error auth.login_ex raised instead of answering, when it means a refused login; else null. */
export function loginRefusal(form: LoginForm, err: unknown): string | null {
  // A server whose auth.login_ex has no PASSWORD_PLAIN in its schema (tengig serve before it answered
  // AUTH_ERR) refuses the request's mechanism field.
  if (err instanceof ApiError && err.code === RPC_CODES.invalidParams && form.mechanism === 'PASSWORD_PLAIN'
      && err.fieldErrors.some(([field]) => field.endsWith('mechanism'))) {
    return passwordsNotTaken(['API_KEY_PLAIN'])
  }
  return null
}

/** The page is TrueNAS's plugin route (/_plugins/tengig/), not tengig serve. */
export function servedByTrueNAS(loc: { pathname: string }): boolean {
  return loc.pathname.startsWith('/_plugins/')
}

/**
 * Whether to ask auth.mechanism_choices after a refused password: not on TrueNAS. TrueNAS's
 * auth.mechanism_choices fails on a connection that is not logged in (it reads the session's
 * credentials, and middlewared logs the exception); tengig serve answers it, and offers no password.
 */
export function asksMechanisms(loc: { pathname: string }): boolean {
  return !servedByTrueNAS(loc)
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/i

/**
 * Why an API key must not be sent from this page, or null. TrueNAS revokes an API key that logs in over
 * an insecure transport (plain http from another machine) and answers EXPIRED: the key would be lost.
 */
export function keyRisk(loc: { protocol: string; hostname: string; pathname: string }): string | null {
  if (!servedByTrueNAS(loc) || loc.protocol === 'https:' || LOOPBACK.test(loc.hostname)) return null
  return 'This page came over plain http, and TrueNAS revokes an API key sent that way: open the panel over https, '
    + 'or log in with your password.'
}

/** One login: the answer, and for a refused password (when `askMechanisms`) what the server offers,
 * to say the right thing. */
export async function attemptLogin(api: LoginApi, form: LoginForm, askMechanisms = true): Promise<LoginOutcome> {
  let answer: AuthLoginExResponse
  try {
    answer = await api.login(loginData(form))
  } catch (err) {
    const reason = loginRefusal(form, err)
    if (reason === null) throw err
    return { ok: false, reason }
  }
  let offered: string[] | null = null
  if (askMechanisms && answer.response_type === 'AUTH_ERR' && form.mechanism === 'PASSWORD_PLAIN') {
    // A server without auth.mechanism_choices (or that fails it) gets the plain "wrong password".
    offered = await api.mechanismChoices().then((c) => (Array.isArray(c) ? c.map(String) : null), () => null)
  }
  return loginOutcome(form, answer, offered)
}

// --- what is remembered: the mechanism and the username (localStorage), never the password ---

export const CHOICE_STORAGE = 'tengig.login'

export interface LoginChoice {
  mechanism: AuthMechanism
  username: string
}

export function rememberedChoice(storage: Pick<Storage, 'getItem'>): LoginChoice {
  let saved: Partial<LoginChoice> = {}
  try {
    saved = JSON.parse(storage.getItem(CHOICE_STORAGE) ?? '{}') as Partial<LoginChoice>
  } catch {
    /* not ours or damaged: the defaults */
  }
  const mechanism = MECHANISMS.some((m) => m.value === saved?.mechanism) ? (saved.mechanism as AuthMechanism) : DEFAULT_MECHANISM
  return { mechanism, username: typeof saved?.username === 'string' ? saved.username : '' }
}

export function rememberChoice(storage: Pick<Storage, 'setItem'>, form: LoginForm): void {
  const choice: LoginChoice = { mechanism: form.mechanism, username: form.username.trim() }
  storage.setItem(CHOICE_STORAGE, JSON.stringify(choice))
}
