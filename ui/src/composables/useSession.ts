/**
 * The one connection and login of the panel. The API key lives in sessionStorage (this tab only), so
 * a reload logs in again without asking, and closing the tab forgets it.
 */
import { reactive, readonly } from 'vue'
import { TengigApi } from '../api/client'
import { ConnectionError } from '../api/errors'
import { RpcClient, apiUrlFromLocation } from '../api/rpc'
import { reportError } from './useErrors'

const KEY_STORAGE = 'tengig.apiKey'
const USER_STORAGE = 'tengig.username'

type Status = 'logged-out' | 'connecting' | 'logged-in'

const state = reactive({ status: 'logged-out' as Status, username: '', url: '' })
let api: TengigApi | null = null

export function currentApi(): TengigApi {
  if (!api) throw new ConnectionError('Not logged in: log in with an API key first.')
  return api
}

export async function logIn(username: string, apiKey: string, remember = true): Promise<boolean> {
  state.status = 'connecting'
  state.url = apiUrlFromLocation(window.location)
  api?.rpc.close()
  const rpc = new RpcClient(state.url)
  try {
    await rpc.connect()
    const candidate = new TengigApi(rpc)
    if (!(await candidate.login(username, apiKey))) {
      rpc.close()
      state.status = 'logged-out'
      sessionStorage.removeItem(KEY_STORAGE)
      reportError(new ConnectionError(`The server refused the API key for user ${username}; check the key and the user name.`), 'login')
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
    state.username = username
    if (remember) {
      sessionStorage.setItem(KEY_STORAGE, apiKey)
      sessionStorage.setItem(USER_STORAGE, username)
    }
    return true
  } catch (err) {
    rpc.close()
    state.status = 'logged-out'
    reportError(err, 'login')
    return false
  }
}

/** Logs in with the key this tab remembered, if any. */
export async function resumeSession(): Promise<void> {
  const key = sessionStorage.getItem(KEY_STORAGE)
  if (key) await logIn(sessionStorage.getItem(USER_STORAGE) || 'root', key)
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
