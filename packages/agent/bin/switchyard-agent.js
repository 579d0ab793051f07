#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=50
// `switchyard-agent`: the file npm links as the bin (it exists before a workspace build); the program is dist/agent-cli.js.
// --max-semi-space-size=4: V8's young generation stays at 4 MiB semi-spaces instead of growing to
// 16 MiB (about 30 MiB of RSS; docs/agent.md, "Agent memory"); at 1 MiB a warm realization's CPU
// was 25-38 % higher (the scavenger runs four times as often and promotes what a larger young
// generation would have let die). --heap-growing-percent=50: the old generation's next collection
// comes when it has grown by half its live size, as Go's GOGC does (at 100), instead of by up to 4x.
// Together: 128-130 MiB right after realizing 110 pods, 1,000 rules and 100 Services.
// tools/lab starts the agent with the same flags.
import '../dist/agent-cli.js';
