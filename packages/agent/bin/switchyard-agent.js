#!/usr/bin/env -S node --max-semi-space-size=1 --heap-growing-percent=50
// `switchyard-agent`: the file npm links as the bin (it exists before a workspace build); the program is dist/agent-cli.js.
// --max-semi-space-size=1: V8's young generation stays at 1 MiB semi-spaces instead of growing to
// 16 MiB (about 30 MiB of RSS; docs/agent.md, "Agent memory"). --heap-growing-percent=50: the old
// generation's next collection comes when it has grown by half its live size, as Go's GOGC does (at
// 100), instead of by up to 4x: 124-129 MiB right after realizing 110 pods, 1,000 rules and 100
// Services against 141-163 MiB, with no CPU cost measured in the realization. tools/lab starts the
// agent with the same flags.
import '../dist/agent-cli.js';
