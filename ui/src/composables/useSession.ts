/**
 * The one connection and login of the panel (api/login.ts says what each answer means).
 * The chosen mechanism and the username are remembered (localStorage); a password never is. An API
 * key lives in sessionStorage (this tab only), so a reload logs in again without asking, and closing
 * the tab forgets it; after a password login a reload asks again. Every login, typed or resumed, goes to
 * the server that served the page (loginUrl), whatever the page's address says.
 */
import { reactive, readonly } from 'vue'
import { TengigApi } from '../api/client'
import { ConnectionError, LoginRefusedError } from '../api/errors'
import { RpcClient, apiUrlFromLocation } from '../api/rpc'
import { asksMechanisms, attemptLogin, rememberChoice, rememberedChoice, type LoginForm } from '../api/login'
import { clearErrors, reportError } from './useErrors'

const KEY_STORAGE = 'tengig.apiKey'

type Status = 'logged-out' | 'connecting' | 'logged-in'

const state = reactive({ status: 'logged-out' as Status, username: '', url: '' })
let api: TengigApi | null = null

/** Where a login goes: the server that served this page (the login form shows it before anything is sent). */
export function loginUrl(): string {
  return apiUrlFromLocation(window.location)
}

export function currentApi(): TengigApi {
  if (!api) throw new ConnectionError('Not logged in: log in first.')
  return api
}

export async function logIn(form: LoginForm, remember = true): Promise<boolean> {
  clearErrors('login') // the answer to this attempt replaces the last one's
  state.status = 'connecting'
  state.url = loginUrl()
  api?.rpc.close()
  const rpc = new RpcClient(state.url)
  try {
    await rpc.connect()
    const candidate = new TengigApi(rpc)
    const outcome = await attemptLogin(candidate, form, asksMechanisms(window.location))
    if (!outcome.ok) {
      rpc.close()
      state.status = 'logged-out'
      sessionStorage.removeItem(KEY_STORAGE)
      reportError(new LoginRefusedError(outcome.reason), 'login')
      return false
    }
    api = candidate
    rpc.onClose((err) => {
      if (api !== candidate) return // logged out on purpose
      state.status = 'logged-out'
      api = null
      reportError(err, 'connection')
    })
    state.status = 'logged-in'
    state.username = outcome.username
    if (remember) {
      rememberChoice(localStorage, form)
      if (form.mechanism === 'API_KEY_PLAIN') sessionStorage.setItem(KEY_STORAGE, form.secret.trim())
      else sessionStorage.removeItem(KEY_STORAGE)
    }
    return true
  } catch (err) {
    rpc.close()
    state.status = 'logged-out'
    reportError(err, 'login')
    return false
  }
}

/** Logs in with the API key this tab remembered, if any (a password is never remembered). */
export async function resumeSession(): Promise<void> {
  const key = sessionStorage.getItem(KEY_STORAGE)
  const choice = rememberedChoice(localStorage)
  if (key && choice.mechanism === 'API_KEY_PLAIN' && choice.username) {
    await logIn({ mechanism: 'API_KEY_PLAIN', username: choice.username, secret: key })
  }
}

export function logOut(): void {
  sessionStorage.removeItem(KEY_STORAGE)
  const closing = api
  api = null
  closing?.rpc.close()
  state.status = 'logged-out'
}

export function useSession() {
  return readonly(state)
}
