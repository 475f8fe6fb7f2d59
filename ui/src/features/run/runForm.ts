/**
 * The Run form as a person fills it, to the request tengig.bench.run takes, with each problem named by
 * the request field it is about (as the server names it). Pure.
 *
 * Desktops join only a run on the NAS itself (system local: tengig's own host keeps the run's token;
 * the lab's clients are its own hosts, named in "clients").
 */
import type { BenchRunRequest, BenchSystemName, BenchSystemState, Preset, RunKind } from '../../api/types'

export const MAX_JOIN = 16

export interface RunDraft {
  system: BenchSystemName | ''
  target: string
  preset: Preset
  kind: RunKind
  clients: string
  repeats: string
  netSeconds: string
  /** Desktops to wait for; '' or '0': none. */
  join: string
  share: string
}

export const EMPTY_RUN_DRAFT: RunDraft = {
  system: '', target: '', preset: 'quick', kind: 'all', clients: '', repeats: '', netSeconds: '', join: '', share: '',
}

/** Whether desktops can join a run on `system` through this API, as tengig.bench.systems says (tengig's
 * own host on the NAS: yes; the middlewared plugin: no, its logins know no run token). */
export function acceptsJoins(system: string, systems: readonly BenchSystemState[]): boolean {
  return systems.some((s) => s.name === system && s.joins)
}

export function measuresSmb(kind: RunKind): boolean {
  return kind === 'smb' || kind === 'smallfiles' || kind === 'all'
}

/** Vue's v-model hands a number input's value over as a number: read every field as text. */
function asText(value: unknown): string {
  return value === null || value === undefined ? '' : String(value).trim()
}

type Outcome = { ok: true; request: BenchRunRequest } | { ok: false; errors: [string, string][] }

export function draftToRequest(systems: readonly BenchSystemState[], draft: RunDraft): Outcome {
  const errors: [string, string][] = []
  const joins = acceptsJoins(draft.system, systems)
  let join = 0
  const joinText = asText(draft.join)
  if (joins && joinText) {
    join = Number(joinText)
    if (!Number.isInteger(join) || join < 0 || join > MAX_JOIN) {
      errors.push(['join', `desktops to join: a whole number from 0 to ${MAX_JOIN}, not ${JSON.stringify(joinText)}`])
    }
  }
  const share = asText(draft.share)
  if (joins && join > 0 && measuresSmb(draft.kind) && !share) {
    errors.push(['share', 'SMB share: name the share the desktops copy to (needed when desktops join a run that measures SMB)'])
  }
  if (errors.length) return { ok: false, errors }
  const clients = joins ? [] : asText(draft.clients).split(/[\s,]+/).filter(Boolean)
  return {
    ok: true,
    request: {
      ...(draft.system ? { system: draft.system } : {}),
      target: draft.target, preset: draft.preset, kind: draft.kind, clients,
      ...(asText(draft.repeats) ? { repeats: Number(asText(draft.repeats)) } : {}),
      ...(asText(draft.netSeconds) ? { net_seconds: Number(asText(draft.netSeconds)) } : {}),
      ...(join > 0 ? { join, ...(share ? { share } : {}) } : {}),
    },
  }
}
