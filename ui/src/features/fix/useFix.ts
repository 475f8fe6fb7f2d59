/**
 * A run's fixes from its verdict view: the plan (tengig.fix.plan, read-only), the fixes already made from it or
 * measured by it (tengig.fix.query), one fix applied (tengig.fix.apply, a job of useJob: the change, then SMB
 * measured again with the desktops joining the re-measure as they join a run: progress.extra.session), and
 * Undo (tengig.fix.undo). Nothing is applied without `confirm()` after `choose()`: the request always carries
 * confirm: true only from there.
 */
import { computed, ref } from 'vue'
import type { FixApplyRequest, FixEntry, FixOutcome, FixPlan, FixRecord } from '../../api/types'
import { describeError } from '../../api/errors'
import { clearErrors, reportError } from '../../composables/useErrors'
import { useJob, type JobApi } from '../../composables/useJob'
import { currentApi } from '../../composables/useSession'
import { joinSessionOf, type JoinSession } from '../run/joinSession'

export const FIX_CONTEXT = 'verdict'

/** What the fixes take from the API (TengigApi has it; tests pass a fake). */
export interface FixApi extends JobApi {
  fixPlan(runId: number): Promise<FixPlan>
  fixes(runId: number | null): Promise<FixRecord[]>
  startFixApply(request: FixApplyRequest): Promise<number>
  fixUndo(runId: number): Promise<string[]>
}

export function applyRequest(runId: number, fix: FixEntry): FixApplyRequest {
  return { run_id: runId, fix: fix.name, confirm: true }
}

export function useFix(options: { api?: () => FixApi } = {}) {
  const api = options.api ?? currentApi
  const runId = ref<number | null>(null)
  const plan = ref<FixPlan | null>(null)
  const planNote = ref('')
  const records = ref<FixRecord[]>([])
  /** The fix shown for confirmation; null: none asked. */
  const chosen = ref<FixEntry | null>(null)
  const session = ref<JoinSession | null>(null)
  const undoAsked = ref(false)
  const undone = ref<string[] | null>(null)
  const job = useJob<FixOutcome>({
    context: FIX_CONTEXT,
    api,
    onUpdate: (snapshot) => {
      session.value = joinSessionOf(snapshot.progress.extra) ?? session.value
    },
  })
  const waitingForClients = computed(() =>
    job.running.value && session.value !== null && joinSessionOf(job.state.job?.progress.extra) !== null
    && session.value.joined.length < session.value.expected)

  /** The plan and the fixes of ``id``. A run the server cannot plan fixes for (an older tengig's, one it
   * does not read) is no error of the verdict: the advice stays words and ``planNote`` says why. */
  async function load(id: number) {
    runId.value = id
    plan.value = null
    planNote.value = ''
    records.value = []
    undone.value = null
    try {
      const [p, r] = await Promise.all([api().fixPlan(id), api().fixes(id)])
      if (runId.value !== id) return
      plan.value = p
      records.value = r
    } catch (err) {
      if (runId.value === id) planNote.value = `No fixes offered: ${describeError(err)}`
    }
  }

  async function reloadRecords() {
    if (runId.value === null) return
    try {
      records.value = await api().fixes(runId.value)
    } catch (err) {
      reportError(err, FIX_CONTEXT)
    }
  }

  /** Shows the change and its prediction for confirmation; changes nothing. */
  function choose(fix: FixEntry) {
    if (job.running.value) return
    chosen.value = fix
  }

  function dismiss() {
    chosen.value = null
  }

  /** The confirmed fix: applied, measured again, kept or put back. */
  async function confirm(): Promise<FixOutcome | null> {
    const fix = chosen.value
    if (!fix || runId.value === null || job.running.value) return null
    clearErrors(FIX_CONTEXT)
    chosen.value = null
    session.value = null
    undone.value = null
    const request = applyRequest(runId.value, fix)
    const outcome = await job.run(() => api().startFixApply(request))
    await reloadRecords()
    return outcome
  }

  /** Puts back the value before every fix the run kept (asked first with askUndo). */
  async function undo() {
    if (runId.value === null) return
    undoAsked.value = false
    clearErrors(FIX_CONTEXT)
    let lines: string[] | null = null
    try {
      lines = await api().fixUndo(runId.value)
    } catch (err) {
      reportError(err, FIX_CONTEXT)
    }
    // the records first: the list of what was put back and the line beside the advice change together
    await reloadRecords()
    if (lines !== null) undone.value = lines
  }

  return {
    runId, plan, planNote, records, chosen, session, waitingForClients, undoAsked, undone, job,
    load, choose, dismiss, confirm, undo, cancel: job.cancel,
  }
}
