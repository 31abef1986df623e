/**
 * A line chart as a standalone SVG file, written without a browser (the soak's plots): one series
 * over time, the warm-up shaded, axes with round ticks. Small on purpose: a report needs a picture
 * of a trend, not a plotting library.
 */
export interface LineChart {
  title: string;
  /** Shown after the y values, e.g. "MB". */
  unit: string;
  /** [minutes since start, value]. */
  points: Array<[number, number]>;
  /** Minutes: the warm-up ends here (shaded before). */
  warmupEnd?: number;
  /** A horizontal line: the bound the run checks, when it is a level. */
  limit?: { value: number; label: string };
}

const WIDTH = 640;
const HEIGHT = 320;
const MARGIN = { left: 70, right: 20, top: 36, bottom: 40 };

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** About five round steps (1, 2 or 5 times a power of ten) covering [low, high]. */
function ticks(low: number, high: number): number[] {
  const span = high - low || Math.abs(high) || 1;
  const raw = span / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = Math.floor(low / step) * step; ; v += step) {
    out.push(Number(v.toPrecision(12)));
    if (v >= high) return out;
  }
}

const label = (v: number) => (Math.abs(v) >= 1000 ? v.toLocaleString('en-US', { maximumFractionDigits: 0 }) : String(Number(v.toPrecision(3))));

export function lineChartSvg(chart: LineChart): string {
  const values = chart.points.map((p) => p[1]).concat(chart.limit ? [chart.limit.value] : []);
  const yTicks = ticks(Math.min(0, ...values), Math.max(...values, 1e-9));
  const xMax = Math.max(...chart.points.map((p) => p[0]), 1);
  const xTicks = ticks(0, xMax).filter((t) => t <= xMax + 1e-9);
  const [yLow, yHigh] = [yTicks[0]!, yTicks[yTicks.length - 1]!];
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (v: number) => MARGIN.left + (v / xMax) * plotW;
  const y = (v: number) => MARGIN.top + plotH - ((v - yLow) / (yHigh - yLow || 1)) * plotH;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="14">${escape(chart.title)}</text>`,
  ];
  if (chart.warmupEnd) {
    parts.push(`<rect x="${x(0)}" y="${MARGIN.top}" width="${x(Math.min(chart.warmupEnd, xMax)) - x(0)}" height="${plotH}" fill="#eee"/>`);
    parts.push(`<text x="${x(0) + 4}" y="${MARGIN.top + 12}" fill="#777">warm-up</text>`);
  }
  for (const t of yTicks) {
    parts.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${y(t) + 4}" text-anchor="end">${label(t)}</text>`);
  }
  for (const t of xTicks) parts.push(`<text x="${x(t)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${label(t)}</text>`);
  parts.push(`<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 6}" text-anchor="middle">minutes</text>`);
  parts.push(`<text x="14" y="${MARGIN.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 14 ${MARGIN.top + plotH / 2})">${escape(chart.unit)}</text>`);
  parts.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  if (chart.limit) {
    parts.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(chart.limit.value)}" y2="${y(chart.limit.value)}" stroke="#c33" stroke-dasharray="5 4"/>`);
    parts.push(`<text x="${WIDTH - MARGIN.right - 4}" y="${y(chart.limit.value) - 4}" text-anchor="end" fill="#c33">${escape(chart.limit.label)}</text>`);
  }
  const line = chart.points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ');
  parts.push(`<polyline points="${line}" fill="none" stroke="#2262c6" stroke-width="2"/>`);
  for (const [px, py] of chart.points) parts.push(`<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="2.5" fill="#2262c6"/>`);
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
