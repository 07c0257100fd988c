/**
 * Line charts of the studio's pages (uPlot, a small canvas chart library served with the pages):
 * x in seconds since the epoch, drawn in UTC as the pages speak it; colours that stay apart for
 * the common kinds of colour blindness (Okabe–Ito); whole-number ticks for counts; a legend of
 * names, not hover values. Charts follow the window's width.
 */
import uPlot from 'uplot';

const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#999999'];

/** Steps between a count axis's ticks: whole numbers only. */
const COUNT_STEPS = [1, 2, 5]
  .flatMap((m) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8].map((p) => m * p))
  .sort((a, b) => a - b);

const charts: uPlot[] = [];
const HEIGHT = 260;

export interface LineSeries {
  readonly name: string;
  readonly values: readonly (number | null)[];
}

/** Removes every chart of the page. */
export function clearCharts(): void {
  for (const c of charts.splice(0)) c.destroy();
}

/** A line chart into `target`, replacing what was there. */
export function lineChart(
  target: HTMLElement,
  options: { title: string; xLabel: string; yLabel: string; wholeNumbers: boolean },
  x: readonly number[],
  series: readonly LineSeries[],
): void {
  const opts: uPlot.Options = {
    title: options.title,
    width: Math.max(280, target.clientWidth),
    height: HEIGHT,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    // The legend names the series only: live values read `--` until a pointer hovers, and a
    // phone has no hover (each chart has its numbers as a table beside it).
    legend: { live: false },
    scales: { y: { range: (_u, min, max) => [Math.min(0, min), Math.max(1, max)] } },
    axes: [{}, { label: options.yLabel, size: 60, ...(options.wholeNumbers ? { incrs: COUNT_STEPS } : {}) }],
    series: [
      { label: options.xLabel },
      ...series.map((s, i) => ({
        label: s.name,
        stroke: PALETTE[i % PALETTE.length] as string,
        width: 2,
        points: { show: x.length <= 48 },
      })),
    ],
  };
  target.replaceChildren();
  charts.push(new uPlot(opts, [[...x], ...series.map((s) => [...s.values])], target));
}

let resizing: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('resize', () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => {
    for (const c of charts)
      c.setSize({ width: Math.max(280, c.root.parentElement?.clientWidth ?? 280), height: HEIGHT });
  }, 150);
});
