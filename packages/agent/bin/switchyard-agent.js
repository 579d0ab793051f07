#!/usr/bin/env node
// `switchyard-agent`: the file npm links as the bin (it exists before a workspace build); the program is dist/agent-cli.js.
import '../dist/agent-cli.js';
