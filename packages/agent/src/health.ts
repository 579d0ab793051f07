/** The agent's health answer: each part's health under `controllers`, the shape the API has always served. */
import type { PartHealth, PartsHealth } from '@switchyard/runtime';

/** A part's own view of how it is doing (runtime's {@link PartHealth}, under the agent's older name). */
export type ControllerHealth = PartHealth;

/** Health of the whole agent: ok when every part is. */
export interface AgentHealth {
  ok: boolean;
  /** Each part's health under its name, in start order. */
  controllers: (ControllerHealth & { name: string })[];
}

/** Runtime's parts health in the agent's answer shape. */
export function agentHealth(h: PartsHealth): AgentHealth {
  return { ok: h.ok, controllers: h.parts };
}
