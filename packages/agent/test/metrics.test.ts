// Prometheus text rendering of the agent's metric families.
import { Histogram, renderGauge } from '../src/index';

it('a histogram renders cumulative buckets, +Inf, sum and count per label set', () => {
  const h = new Histogram('x_seconds', 'help text', [0.1, 1]);
  h.observe(0.05, { command: 'ADD' });
  h.observe(0.5, { command: 'ADD' });
  h.observe(3, { command: 'ADD' });
  h.observe(0.2, { command: 'DEL' });
  expect(h.render()).toEqual([
    '# HELP x_seconds help text',
    '# TYPE x_seconds histogram',
    'x_seconds_bucket{command="ADD",le="0.1"} 1',
    'x_seconds_bucket{command="ADD",le="1"} 2',
    'x_seconds_bucket{command="ADD",le="+Inf"} 3',
    'x_seconds_sum{command="ADD"} 3.55',
    'x_seconds_count{command="ADD"} 3',
    'x_seconds_bucket{command="DEL",le="0.1"} 0',
    'x_seconds_bucket{command="DEL",le="1"} 1',
    'x_seconds_bucket{command="DEL",le="+Inf"} 1',
    'x_seconds_sum{command="DEL"} 0.2',
    'x_seconds_count{command="DEL"} 1',
  ]);
});

it('gauges escape label values', () => {
  expect(renderGauge('g', 'h', [{ labels: { t: 'a"b\\c' }, value: 2 }, { value: 1 }])).toEqual(['# HELP g h', '# TYPE g gauge', 'g{t="a\\"b\\\\c"} 2', 'g 1']);
});
