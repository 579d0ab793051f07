#!/usr/bin/env node
// `switchyard-mc-controller`: the file npm links as the bin (it exists before a workspace build); the program is dist/cli.js.
import '../dist/cli.js';
