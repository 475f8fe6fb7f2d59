/** The "add your own target" form: what a person types (MB/s) to what tengig.targets.create takes (bytes/s). */
import type { NewTarget, Target } from '../../api/types'
import { BYTES_PER_MB, formatMBps } from '../../lib/format'

export interface TargetDraft {
  name: string
  title: string
  readMBps: string
  writeMBps: string
  source: string
}

export const EMPTY_DRAFT: TargetDraft = { name: '', title: '', readMBps: '', writeMBps: '', source: '' }

const NAME = /^[a-z0-9][a-z0-9-]{0,39}$/

/** [field, message] per problem, named like the server names them (target.*), or the request. */
export function draftToTarget(draft: TargetDraft): { ok: true; target: NewTarget } | { ok: false; errors: [string, string][] } {
  const errors: [string, string][] = []
  const name = draft.name.trim()
  if (!NAME.test(name)) errors.push(['target.name', 'lower case letters, digits and "-", up to 40, not starting with "-"'])
  if (!draft.title.trim()) errors.push(['target.title', 'a human name is needed'])
  if (!draft.source.trim()) errors.push(['target.source', 'say where the figure comes from (review, datasheet)'])
  const rate = (text: string, field: string, required: boolean): number | null => {
    const t = text.trim()
    if (!t) {
      if (required) errors.push([field, 'a speed in MB/s is needed'])
      return null
    }
    const v = Number(t)
    if (!Number.isFinite(v) || v <= 0) {
      errors.push([field, `${JSON.stringify(t)} is not a speed in MB/s above 0`])
      return null
    }
    return Math.round(v * BYTES_PER_MB)
  }
  const read = rate(draft.readMBps, 'target.read_bytes_per_s', true)
  const write = rate(draft.writeMBps, 'target.write_bytes_per_s', false)
  if (errors.length || read === null) return { ok: false, errors }
  return { ok: true, target: { name, title: draft.title.trim(), read_bytes_per_s: read, write_bytes_per_s: write, source: draft.source.trim() } }
}

export interface TargetRow {
  name: string
  title: string
  read: string
  write: string
  source: string
  builtin: boolean
}

export function targetRow(t: Target): TargetRow {
  return {
    name: t.name,
    title: t.title,
    read: formatMBps(t.read_bytes_per_s),
    write: t.write_bytes_per_s === null ? 'no figure' : formatMBps(t.write_bytes_per_s),
    source: t.source,
    builtin: t.builtin,
  }
}
