import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  /** One value per time in `times`; null where this series has no sample. */
  values: Array<number | null>;
}

const COLOURS = ['#2f5fb3', '#b3452f', '#2f8f5f', '#7a4fb3', '#8f7a2f'];

/**
 * A small time series drawn with uPlot on a canvas. A canvas says nothing to
 * a screen reader, so the figure names what it plots and its newest values in
 * words (`summary`), and the numbers behind it stay on the page as text.
 */
export function TimeChart({ title, times, series, summary, unit }: { title: string; times: number[]; series: Series[]; summary: string; unit: string }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    if (!element) return undefined;
    const width = Math.max(240, Math.min(element.clientWidth || 560, 560));
    const plot = new uPlot(
      {
        width,
        height: 160,
        legend: { show: series.length > 1 },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [{}, { label: unit, size: 50 }],
        series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: COLOURS[i % COLOURS.length], width: 2, spanGaps: false }))],
      },
      [times, ...series.map((s) => s.values)],
      element,
    );
    const resize = () => plot.setSize({ width: Math.max(240, Math.min(element.clientWidth || 560, 560)), height: 160 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [times, series, unit]);
  return (
    <figure className="operator-chart">
      <figcaption>
        <strong>{title}</strong> <span className="muted">{summary}</span>
      </figcaption>
      <div ref={holder} role="img" aria-label={`${title}: ${summary}`} />
    </figure>
  );
}
