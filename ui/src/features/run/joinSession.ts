/**
 * A run on the NAS itself (system local) that waits for desktops to join over the network. Pure.
 *
 * While it waits, the job's progress.extra is {phase: "waiting for clients", session: {id, token,
 * expected, joined: [...]}} (middleware/tengig/bench/run/suite_joined.py). Each desktop runs
 * `tengig client join ws://NAS:PORT --token T`: the URL is the one this panel is connected to (the same
 * API the desktop logs in to with the run's token), so the command is right wherever the panel was
 * opened from, behind https (wss) too.
 */

export const WAITING_PHASE = 'waiting for clients'
/** The SMB credentials file the README's example uses; the desktop keeps its own. */
export const SMB_AUTH_FILE = '~/.nas-smb.auth'

export interface JoinedClient {
  name: string
  os: string
  address: string
  nasAddress: string
  /** Seconds since the epoch (the NAS's clock). */
  joinedAt: number | null
  /** Why the NAS dropped it (its connection closed, no answer in time); null while it takes part. */
  gone: string | null
}

export interface JoinSession {
  id: number
  token: string
  expected: number
  joined: JoinedClient[]
}

function record(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null
}

function clientOf(value: unknown): JoinedClient | null {
  const c = record(value)
  if (!c || typeof c.name !== 'string' || !c.name) return null
  const text = (v: unknown) => (typeof v === 'string' ? v : '')
  return {
    name: c.name,
    os: text(c.os),
    address: text(c.address),
    nasAddress: text(c.nas_address),
    joinedAt: typeof c.joined_at === 'number' ? c.joined_at : null,
    gone: typeof c.gone === 'string' && c.gone ? c.gone : null,
  }
}

/** The session a waiting run announces in progress.extra; null for any other extra (a live sample). */
export function joinSessionOf(extra: unknown): JoinSession | null {
  const e = record(extra)
  const s = record(e?.session)
  if (!e || e.phase !== WAITING_PHASE || !s) return null
  if (typeof s.id !== 'number' || typeof s.token !== 'string' || !s.token || typeof s.expected !== 'number') return null
  const joined = Array.isArray(s.joined) ? s.joined.map(clientOf).filter((c): c is JoinedClient => c !== null) : []
  return { id: s.id, token: s.token, expected: s.expected, joined }
}

/**
 * ws://HOST:PORT (or wss://) of the API the panel is connected to, with the port always written (a
 * desktop's `tengig client join` would otherwise try tengig's own default port).
 */
export function joinServerUrl(apiUrl: string): string {
  const url = new URL(apiUrl)
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new Error(`the panel's API address ${apiUrl} is not a ws:// or wss:// URL`)
  }
  const port = url.port || (url.protocol === 'wss:' ? '443' : '80')
  return `${url.protocol}//${url.hostname}:${port}`
}

/** Where a desktop measures its own disk when asked: its home directory, on the disk people compare with. */
export const OWN_DISK_DIR = '~'

/**
 * The command each desktop runs, as argv; the SMB credentials only when the run copies to the share, and
 * with `ownDisk` the desktop also measures its own disk (the verdict then compares SMB with it).
 */
export function joinArgv(apiUrl: string, token: string, withSmb: boolean, ownDisk = false): string[] {
  return ['tengig', 'client', 'join', joinServerUrl(apiUrl), '--token', token,
    ...(withSmb ? ['--smb-auth-file', SMB_AUTH_FILE] : []),
    ...(withSmb && ownDisk ? ['--disk', OWN_DISK_DIR] : [])]
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./~-]+$/

/** One line to paste into a POSIX shell: words that need it in single quotes. */
export function shellLine(argv: string[]): string {
  return argv.map((w) => (SAFE_WORD.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ')
}

/** "1 of 2 joined" (a gone client still counts: it took its place in the run). */
export function joinedSummary(session: JoinSession): string {
  return `${session.joined.length} of ${session.expected} joined`
}

export function clientLine(c: JoinedClient): string {
  const where = c.address ? `, ${c.address}` : ''
  return `${c.name} (${c.os || 'unknown OS'}${where})${c.gone ? ` — gone: ${c.gone}` : ''}`
}
