/**
 * tengig.mesh.apply / tengig.mesh.verify from the mesh view: start the job, follow its core.get_jobs
 * events (progress and description live), keep the result or the error. One job at a time per use.
 */
import { computed, reactive } from 'vue'
import { describeError } from '../../api/errors'
import type { Job } from '../../api/types'
import { reportError } from '../../composables/useErrors'
import { currentApi } from '../../composables/useSession'

export function useMeshJob<T>() {
  const state = reactive({
    phase: 'idle' as 'idle' | 'running' | 'done' | 'failed',
    job: null as Job | null,
    result: null as T | null,
    failure: null as string | null,
  })
  const running = computed(() => state.phase === 'running')

  async function run(start: () => Promise<number>) {
    Object.assign(state, { phase: 'running', job: null, result: null, failure: null })
    try {
      const id = await start()
      const result = await currentApi().followJob<T>(id, (job) => (state.job = job))
      state.result = result as never
      state.phase = 'done'
    } catch (err) {
      state.phase = 'failed'
      state.failure = describeError(err)
      reportError(err, 'mesh')
    }
  }

  return { state, running, run }
}
