import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import JoinWaiting from './JoinWaiting.vue'
import type { JoinSession } from './joinSession'

const session: JoinSession = {
  id: 1, token: 'tgb-feed', expected: 2,
  joined: [{ name: 'desk', os: 'linux', address: '10.99.1.2', nasAddress: '10.99.1.1', joinedAt: 1, gone: 'its connection closed' }],
}

describe('JoinWaiting', () => {
  it('shows the command to copy, who joined and who is gone while the run waits', () => {
    const w = mount(JoinWaiting, { props: { session, apiUrl: 'ws://10.99.1.1:8610/api/current', withSmb: false, waiting: true } })
    expect(w.get('[data-test="join-command"]').text()).toBe('tengig client join ws://10.99.1.1:8610 --token tgb-feed')
    expect(w.get('[data-test="join-count"]').text()).toBe('1 of 2 joined')
    const desk = w.get('[data-test="join-client-desk"]')
    expect(desk.text()).toBe('desk (linux, 10.99.1.2) — gone: its connection closed')
    expect(desk.classes()).toContain('gone')
  })

  it('keeps the list but not the command once everyone joined', () => {
    const w = mount(JoinWaiting, { props: { session, apiUrl: 'wss://nas/api/current', withSmb: true, waiting: false } })
    expect(w.find('[data-test="join-command"]').exists()).toBe(false)
    expect(w.get('[data-test="join-count"]').text()).toBe('1 of 2 joined')
    expect(w.text()).toContain('measuring')
  })
})
