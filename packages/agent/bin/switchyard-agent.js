#!/usr/bin/env -S node --max-semi-space-size=1
// `switchyard-agent`: the file npm links as the bin (it exists before a workspace build); the program is dist/agent-cli.js.
// --max-semi-space-size=1: V8's young generation stays at 1 MiB semi-spaces instead of growing to
// 16 MiB (about 30 MiB of RSS; docs/agent.md, "Agent memory"). tools/lab starts the agent with the same flags.
import '../dist/agent-cli.js';
