import { mount } from '@vue/test-utils'
import { describe, expect, it, vi } from 'vitest'
import UPlotChart from './UPlotChart.vue'

describe('UPlotChart', () => {
  // jsdom has no matchMedia, which uPlot reads when it loads: the one browser here that cannot draw.
  it('says in place of the chart why it could not draw it, and raises nothing', async () => {
    expect(typeof window.matchMedia).not.toBe('function')
    const w = mount(UPlotChart, {
      props: { data: [[1, 2], [3, 4]], series: [{ label: 'read', stroke: '--good' }], xLabel: 'run', yLabel: 'MB/s' },
    })
    await vi.waitFor(() => expect(w.find('[data-test="chart-failed"]').exists()).toBe(true), { timeout: 10000 })
    expect(w.get('[data-test="chart-failed"]').text()).toMatch(/could not draw the chart \(.*matchMedia/)
    w.unmount()
  })
})
