/** Which view the address asks for: '#/verdict/12', '#/run', '#/history/7/8' (two runs compared), ... (hash
 * routes work under any base path). */
export const VIEWS = ['verdict', 'run', 'history', 'mesh', 'lagg', 'targets'] as const
export type ViewName = (typeof VIEWS)[number]

export interface Route {
  view: ViewName
  runId: number | null
  /** History comparing two runs (run a, then run b); absent otherwise. */
  pair?: [number, number]
}

const ID = /^\d+$/

export function parseRoute(hash: string): Route {
  const [, view, id, other] = hash.replace(/^#/, '').split('/')
  const known = (VIEWS as readonly string[]).includes(view) ? (view as ViewName) : 'verdict'
  const runId = view === 'verdict' && ID.test(id ?? '') ? Number(id) : null
  if (view === 'history' && ID.test(id ?? '') && ID.test(other ?? '') && id !== other) {
    return { view: known, runId, pair: [Number(id), Number(other)] }
  }
  return { view: known, runId }
}

export function routeHash(route: Route): string {
  if (route.pair) return `#/${route.view}/${route.pair[0]}/${route.pair[1]}`
  return route.runId !== null ? `#/${route.view}/${route.runId}` : `#/${route.view}`
}
