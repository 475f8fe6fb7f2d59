/** Which view the address asks for: '#/verdict/12', '#/run', ... (hash routes work under any base path). */
export const VIEWS = ['verdict', 'run', 'history', 'mesh', 'lagg', 'targets'] as const
export type ViewName = (typeof VIEWS)[number]

export interface Route {
  view: ViewName
  runId: number | null
}

export function parseRoute(hash: string): Route {
  const [, view, id] = hash.replace(/^#/, '').split('/')
  const known = (VIEWS as readonly string[]).includes(view) ? (view as ViewName) : 'verdict'
  const runId = view === 'verdict' && /^\d+$/.test(id ?? '') ? Number(id) : null
  return { view: known, runId }
}

export function routeHash(route: Route): string {
  return route.runId !== null ? `#/${route.view}/${route.runId}` : `#/${route.view}`
}
