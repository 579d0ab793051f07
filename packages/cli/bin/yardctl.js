#!/usr/bin/env node
// `yardctl`: the file npm links as the bin (it exists before a workspace build); the program is dist/bin.js.
import '../dist/bin.js';
