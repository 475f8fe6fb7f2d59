/**
 * A fix as the panel shows it (tengig.fix.plan, apply and query). Pure.
 *
 * Beside an advice whose cause is a setting of the NAS: the change (setting, from -> to, the call as a person
 * would make it there) and the SMB figure it predicts per direction (MB/s). After it was applied: each direction
 * before and after (the medians of the SMB copies) with the gain, how sure (the chance that copies of an
 * unchanged NAS separate as cleanly by luck alone), and whether the change was kept or put back, with why.
 */
import type { Direction, FixEntry, FixGain, FixOutcome, FixPlan, FixRecord, FixRecordState } from '../../api/types'
import { formatMBps, formatPercent } from '../../lib/format'
import { COMPONENT_NAMES } from '../verdict/verdictView'

/** The fixes of a plan by the advice rule they answer, for one desktop's verdict (``client``), or for a run's
 * only verdict (null: any desktop, as a one-client run's verdict is that desktop's). */
export function fixesByRule(plan: FixPlan | null, client: string | null): Record<string, FixEntry> {
  const out: Record<string, FixEntry> = {}
  for (const fix of plan?.fixes ?? []) {
    if (client !== null && fix.client !== client) continue
    out[fix.rule] ??= fix
  }
  return out
}

/** "server smb encrypt of smb.conf [global]" */
export function settingText(fix: FixEntry): string {
  return `${fix.setting.key} of ${fix.setting.object}`
}

/** "required → if_required"; a value not read now says what the run saw instead. */
export function fromToText(fix: FixEntry): string {
  const from = fix.from_value ?? `not read now (the run saw: ${fix.run_read})`
  return `${from} → ${fix.to_value}`
}

export interface PredictionRow {
  direction: Direction
  /** SMB in the run: "136.9 MB/s". */
  now: string
  /** What the other ceilings allow once the bound is gone: "300.4 MB/s". */
  predicted: string
  /** "+119.4%" */
  change: string
  /** "Pool" (the ceiling that would bound SMB then) */
  bound: string
  why: string
}

export function predictionRows(fix: FixEntry): PredictionRow[] {
  return [...fix.predictions]
    .sort((a, b) => (a.direction < b.direction ? -1 : 1))
    .map((p) => ({
      direction: p.direction,
      now: formatMBps(p.measured_bytes_per_s),
      predicted: fix.gain_unknown ? 'gain unknown' : formatMBps(p.predicted_bytes_per_s),
      change: !fix.gain_unknown && p.measured_bytes_per_s > 0
        ? formatPercent((100 * (p.predicted_bytes_per_s - p.measured_bytes_per_s)) / p.measured_bytes_per_s, { signed: true })
        : '—',
      bound: COMPONENT_NAMES[p.bound],
      why: p.why,
    }))
}

/** "predicted: SMB read 136.9 → up to 300.4 MB/s, write 107.9 → up to 390.6 MB/s" */
export function predictedText(fix: FixEntry): string {
  const parts = predictionRows(fix).map((r) => `${r.direction} ${r.now.replace(' MB/s', '')} → up to ${r.predicted}`)
  return parts.length ? `predicted: SMB ${parts.join(', ')}` : 'no prediction'
}

/** What the confirmation asks, in one sentence. */
export function confirmText(fix: FixEntry): string {
  return `Set ${settingText(fix)} from ${fix.from_value ?? 'its value now'} to ${fix.to_value}, then measure SMB again `
    + `with ${fix.client} (it joins again), and keep the change only if SMB gains beyond the run's own spread; `
    + 'otherwise it is put back.'
}

// --- applied: before and after ---

const VERDICT_WORDS: Record<FixGain['verdict'], string> = {
  gain: 'gain',
  loss: 'loss',
  'within-spread': 'within the spread',
}

export interface GainRow {
  direction: Direction
  /** Medians of the copies: "120.3 MB/s". */
  before: string
  after: string
  /** "+54.2%" (of the medians) */
  gain: string
  verdict: FixGain['verdict']
  verdictText: string
  /** "1 in 20 by luck alone (5%)"; for a move within the spread, that it is none. */
  sure: string
  /** "3 copies before (118.2–121.0 MB/s), 3 after (180.1–190.4 MB/s)" */
  copies: string
}

function span(values: number[]): string {
  const lo = Math.min(...values)
  const hi = Math.max(...values)
  return lo === hi ? formatMBps(lo) : `${formatMBps(lo).replace(' MB/s', '')}–${formatMBps(hi)}`
}

/** How sure a direction's judgement is: the chance of a separation this clean by luck alone. */
export function sureText(gain: FixGain): string {
  if (gain.verdict === 'within-spread') return 'no real change: the copies overlap'
  const oneIn = Math.round(100 / gain.chance_percent)
  return `1 in ${oneIn} by luck alone (${formatPercent(gain.chance_percent, { digits: gain.chance_percent < 1 ? 2 : 0 })})`
}

export function gainRows(gains: FixGain[]): GainRow[] {
  return [...gains]
    .sort((a, b) => (a.direction < b.direction ? -1 : 1))
    .map((g) => ({
      direction: g.direction,
      before: formatMBps(g.before_median),
      after: formatMBps(g.after_median),
      gain: formatPercent(g.gain_percent, { signed: true }),
      verdict: g.verdict,
      verdictText: VERDICT_WORDS[g.verdict],
      sure: sureText(g),
      copies: `${g.before.length} copies before (${span(g.before)}), ${g.after.length} after (${span(g.after)})`,
    }))
}

export const STATE_TEXT: Record<FixRecordState, string> = {
  applying: 'stopped mid-way: Undo puts the value before it back',
  kept: 'kept',
  'rolled-back': 'put back',
  undone: 'undone',
  failed: 'failed, put back',
}

export interface OutcomeView {
  fixId: number
  name: string
  state: FixRecordState
  stateText: string
  /** "server smb encrypt of smb.conf [global]: required → if_required" */
  change: string
  previous: string
  why: string
  undone: string | null
  runId: number
  afterRunId: number | null
  gains: GainRow[]
  /** Predicted against measured, per direction: "read: predicted up to 300.4 MB/s, measured 250.1 MB/s". */
  predictedVsMeasured: string[]
  /** Undo applies: a kept fix, or one a process left mid-way. */
  canUndo: boolean
}

/** A fix's result, from tengig.fix.apply's answer or a tengig.fix.query record. */
export function outcomeView(o: FixOutcome | FixRecord): OutcomeView {
  const isRecord = 'applied' in o
  const state = o.state
  const gains = gainRows(o.gains)
  return {
    fixId: isRecord ? o.id : o.fix_id,
    name: o.fix.name,
    state,
    stateText: STATE_TEXT[state],
    change: `${settingText(o.fix)}: ${o.previous} → ${o.fix.to_value}`,
    previous: o.previous,
    why: o.why ?? (state === 'applying' ? 'it did not finish' : ''),
    undone: isRecord ? o.undone : null,
    runId: o.run_id,
    afterRunId: o.after_run_id,
    gains,
    predictedVsMeasured: 'predictions' in o && o.predictions?.length ? o.predictions.map((c) =>
      `${c.direction}: predicted ${formatMBps(c.predicted_bytes_per_s)}, measured ${formatMBps(c.measured_after_bytes_per_s)} ` +
      `(${formatPercent(c.off_percent, { signed: true })}, ${c.within ? 'within' : 'outside'} 15% of the prediction)`) : o.fix.predictions.map((p) => {
      const g = o.gains.find((x) => x.direction === p.direction)
      return `${p.direction}: predicted up to ${formatMBps(p.predicted_bytes_per_s)}, measured ${g ? formatMBps(g.after_median) : 'nothing'}`
    }),
    canUndo: state === 'kept' || state === 'applying',
  }
}

/** The fix whose run and re-measure are ``a`` and ``b`` (either way round); null when they are no such pair. */
export function fixPair(records: FixRecord[], a: number, b: number): FixRecord | null {
  return records.find((r) => r.after_run_id !== null
    && ((r.run_id === a && r.after_run_id === b) || (r.run_id === b && r.after_run_id === a))) ?? null
}

/** How a run stands to fixes, for its verdict and its History row: "a fix of run 7 (smb-encryption, kept)". */
export function fixNote(records: FixRecord[], runId: number): string {
  const measured = records.find((r) => r.after_run_id === runId)
  if (measured) return `re-measure of fix ${measured.name} from run ${measured.run_id} (${STATE_TEXT[measured.state]})`
  const made = records.filter((r) => r.run_id === runId)
  if (!made.length) return ''
  return made.map((r) => `fix ${r.name} ${STATE_TEXT[r.state]}${r.after_run_id !== null ? ` (run ${r.after_run_id})` : ''}`).join('; ')
}

/** The hash that opens History comparing the pair: '#/history/7/8'. */
export function pairHash(record: Pick<FixRecord, 'run_id' | 'after_run_id'>): string | null {
  return record.after_run_id === null ? null : `#/history/${record.run_id}/${record.after_run_id}`
}

/** Per advice rule, what a fix already made from run ``runId`` did: "kept (run 2)"; a kept fix (or one left
 * mid-way) is in place, so the verdict offers Undo instead of applying it again. */
export function fixesDone(records: FixRecord[], runId: number): Record<string, { text: string; inPlace: boolean }> {
  const out: Record<string, { text: string; inPlace: boolean }> = {}
  for (const r of records) { // newest first: the latest fix of each rule wins
    if (r.run_id !== runId || out[r.fix.rule]) continue
    out[r.fix.rule] = {
      text: `fix ${STATE_TEXT[r.state]}${r.after_run_id !== null ? ` (run ${r.after_run_id})` : ''}`,
      inPlace: r.state === 'kept' || r.state === 'applying',
    }
  }
  return out
}

/** A fix changes the NAS tengig runs on, from a run of system local there; the fixes of a run measured
 * elsewhere (the lab, a TrueNAS over its API) stay words, and this says why (''; a run of system local). */
export function elsewhereNote(plan: FixPlan | null, system: unknown): string {
  if (system === 'local' || !plan?.fixes.length) return ''
  const names = plan.fixes.map((f) => f.name).join(', ')
  return `This run measured system ${typeof system === 'string' ? system : 'unknown'}: its fixes (${names}) are applied `
    + 'on the NAS tengig runs on, from a run of system local there.'
}
