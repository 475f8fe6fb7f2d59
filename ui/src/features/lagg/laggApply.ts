/**
 * The LAGG view's apply form (where, the probe, confirm by a person) to tengig.lagg.apply options, and
 * what the answer says. Pure.
 */
import type { LaggApplied, LaggApplyOptions, LaggPlan } from '../../api/types'
import { IPV4 } from './laggVerify'

export interface ApplyDraft {
  system: 'local' | 'truenas'
  probeAddress: string
  waitForCheckin: boolean
  checkinTimeout: string
}

export const EMPTY_APPLY: ApplyDraft = { system: 'truenas', probeAddress: '', waitForCheckin: true, checkinTimeout: '60' }


export function applyOptions(draft: ApplyDraft, plan: LaggPlan):
  { ok: true; options: LaggApplyOptions } | { ok: false; errors: [string, string][] } {
  const errors: [string, string][] = []
  const timeout = Number(draft.checkinTimeout)
  if (!/^\d+$/.test(draft.checkinTimeout.trim()) || timeout < 5 || timeout > 600) {
    errors.push(['options.checkin_timeout', `${JSON.stringify(draft.checkinTimeout)}: seconds, 5 to 600`])
  }
  const probe = draft.probeAddress.trim()
  if (draft.system === 'truenas') {
    if (!IPV4.test(probe)) errors.push(['options.probe_address', 'name an address that must answer over the new LAGG (a peer or the gateway), e.g. 10.20.0.1'])
    if (!plan.platform.startsWith('truenas-')) errors.push(['platform', `this plan is for ${plan.platform}: plan for truenas-scale or truenas-core to apply on a TrueNAS`])
    if (!plan.address) errors.push(['options.address', 'give the LAGG an address: without one the probe cannot reach anything through it'])
  } else if (plan.platform !== 'linux') {
    errors.push(['platform', `this machine applies Linux plans; this one is for ${plan.platform}`])
  }
  if (errors.length) return { ok: false, errors }
  return {
    ok: true,
    options: {
      system: draft.system,
      ...(draft.system === 'truenas' ? { probe_address: probe, checkin_timeout: timeout, wait_for_checkin: draft.waitForCheckin } : {}),
    },
  }
}

/** The confirmation asked before applying. */
export function applyQuestion(draft: ApplyDraft, plan: LaggPlan): string {
  const members = plan.members.map((m) => m.name).join(', ')
  if (draft.system === 'local') return `Create ${plan.name} (${plan.protocol}) over ${members} on this machine?`
  return `Create ${plan.name} (${plan.protocol}) over ${members} on the TrueNAS? It is committed with a rollback timer; `
    + `${draft.probeAddress.trim()} must answer through it${draft.waitForCheckin ? ', then you confirm from this page' : ''}, `
    + 'or TrueNAS puts the previous network back.'
}

export function appliedText(result: LaggApplied): string {
  if (result.api_calls.length) return `${result.name} is in place: ${result.api_calls.join(', ')}, committed and checked in.`
  if (result.ran.length) return `${result.name} is in place (${result.ran.length} commands).`
  return `${result.name} was already as planned: nothing changed.`
}
