/** Which system the Run view offers first: the first one that can be measured now (the server
 * lists local, truenas, lab in that order and never picks the lab by itself; the user sees the
 * choice and its reason before starting). */
import type { BenchSystemName, BenchSystemState } from '../../api/types'

export function firstUsable(states: BenchSystemState[]): BenchSystemName | '' {
  return states.find((s) => s.usable)?.name ?? ''
}

export function systemLabel(state: BenchSystemState): string {
  return `${state.name}${state.usable ? '' : ' (not usable now)'}`
}

export function reasonOf(states: BenchSystemState[], name: string): string {
  return states.find((s) => s.name === name)?.reason ?? ''
}
