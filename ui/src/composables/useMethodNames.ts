/**
 * The methods this server offers (core.get_methods), asked once when the view is mounted: a view
 * offers an action only where its method is there. None until the answer; on an error, still none,
 * and the error goes to the view's error list (`context`).
 */
import { onMounted, ref, type Ref } from 'vue'
import { reportError } from './useErrors'
import { currentApi } from './useSession'

export function useMethodNames(context: string): Ref<Set<string>> {
  const available = ref<Set<string>>(new Set())
  onMounted(async () => {
    try {
      available.value = await currentApi().methodNames()
    } catch (err) {
      reportError(err, context)
    }
  })
  return available
}
