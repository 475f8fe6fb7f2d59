import { flushPromises, mount } from '@vue/test-utils'
import { describe, expect, it, vi } from 'vitest'
import JoinWaiting from './JoinWaiting.vue'
import type { JoinSession } from './joinSession'

const benchKit = vi.fn()
const saved: [string, string][] = []
vi.mock('../../composables/useSession', () => ({ currentApi: () => ({ benchKit }) }))
vi.mock('../../composables/downloadText', () => ({ downloadText: (name: string, text: string) => saved.push([name, text]) }))

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

  it('adds --disk to the command when each desktop is to measure its own disk too', async () => {
    const w = mount(JoinWaiting, { props: { session, apiUrl: 'ws://10.99.1.1:8610/api/current', withSmb: true, waiting: true } })
    expect(w.get('[data-test="join-command"]').text()).not.toContain('--disk')
    await w.get('[data-test="join-own-disk"]').setValue(true)
    expect(w.get('[data-test="join-command"]').text()).toBe(
      'tengig client join ws://10.99.1.1:8610 --token tgb-feed --smb-auth-file ~/.nas-smb.auth --disk ~')
    const noSmb = mount(JoinWaiting, { props: { session, apiUrl: 'ws://nas:8610/api/current', withSmb: false, waiting: true } })
    expect(noSmb.find('[data-test="join-own-disk"]').exists()).toBe(false)  // measured beside the copies only
  })

  it('keeps the list but not the command once everyone joined', () => {
    const w = mount(JoinWaiting, { props: { session, apiUrl: 'wss://nas/api/current', withSmb: true, waiting: false } })
    expect(w.find('[data-test="join-command"]').exists()).toBe(false)
    expect(w.get('[data-test="join-count"]').text()).toBe('1 of 2 joined')
    expect(w.text()).toContain('measuring')
  })

  it('offers the Windows kit for a run with a share: the NAS renders it for this run, the browser saves it', async () => {
    benchKit.mockResolvedValueOnce({ filename: 'tengig-join.ps1', text: '# kit', how: 'powershell -File tengig-join.ps1' })
    const w = mount(JoinWaiting, { props: { session, apiUrl: 'ws://10.99.1.1:8610/api/current', withSmb: true, share: 'tank', waiting: true } })
    await w.get('[data-test="join-windows-kit"]').trigger('click')
    await flushPromises()
    expect(benchKit).toHaveBeenCalledWith({ os: 'windows', nas: 'ws://10.99.1.1:8610', token: 'tgb-feed', share: 'tank' })
    expect(saved).toEqual([['tengig-join.ps1', '# kit']])
    expect(w.get('[data-test="join-windows-kit-status"]').text()).toContain('powershell -File')
  })

  it('says why when the NAS refuses the kit, and offers none without a share', async () => {
    benchKit.mockRejectedValueOnce(new Error('request.token: not a join token'))
    const w = mount(JoinWaiting, { props: { session, apiUrl: 'ws://nas:8610/api/current', withSmb: true, share: 'tank', waiting: true } })
    await w.get('[data-test="join-windows-kit"]').trigger('click')
    await flushPromises()
    expect(w.get('[data-test="join-windows-kit-status"]').text()).toContain('no kit: ')
    const none = mount(JoinWaiting, { props: { session, apiUrl: 'ws://nas:8610/api/current', withSmb: false, waiting: true } })
    expect(none.find('[data-test="join-windows-kit"]').exists()).toBe(false)
  })
})
