/**
 * The methods this server offers (core.get_methods), asked once when the view is mounted: a view
 * offers an action only where its method is there. `has` is false for every method until the answer;
 * `known` tells the answer came, so a view says "this server does not offer ..." only once it knows
 * (on a busy machine the view drew that note before the answer). On an error, still none and not
 * known, and the error goes to the view's error list (`context`).
 */
import { onMounted, reactive, ref } from 'vue'
import { reportError } from './useErrors'
import { currentApi } from './useSession'

export interface MethodNames {
  has(name: string): boolean
  readonly known: boolean
}

export function useMethodNames(context: string): MethodNames {
  const names = ref<Set<string>>(new Set())
  const known = ref(false)
  onMounted(async () => {
    try {
      names.value = await currentApi().methodNames()
      known.value = true
    } catch (err) {
      reportError(err, context)
    }
  })
  return reactive({ has: (name: string) => names.value.has(name), known })
}
