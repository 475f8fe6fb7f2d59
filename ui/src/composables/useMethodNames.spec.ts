import { flushPromises, mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, h } from 'vue'
import { clearErrors, useErrors } from './useErrors'
import { useMethodNames } from './useMethodNames'

const server = { methodNames: async (): Promise<Set<string>> => new Set(['tengig.mesh.plan']) }
vi.mock('./useSession', () => ({ currentApi: () => server }))

const View = defineComponent({
  setup() {
    const available = useMethodNames('mesh')
    return () => h('p', `${available.known ? 'known' : 'unknown'}:${available.has('tengig.mesh.plan')}`)
  },
})

describe('useMethodNames', () => {
  beforeEach(() => clearErrors())

  it('asks once the view is mounted, and has none before the answer', async () => {
    const w = mount(View)
    expect(w.text()).toBe('unknown:false')
    await flushPromises()
    expect(w.text()).toBe('known:true')
    expect(useErrors().errors).toHaveLength(0)
  })

  it('keeps none and reports the error to the view when the server does not answer', async () => {
    server.methodNames = async () => { throw new Error('gone') }
    const w = mount(View)
    await flushPromises()
    expect(w.text()).toBe('unknown:false')
    expect(useErrors().errors.map((e) => e.context)).toEqual(['mesh'])
  })
})
