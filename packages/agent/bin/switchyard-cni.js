#!/usr/bin/env node
// `switchyard-cni`: the file npm links as the bin (it exists before a workspace build); the program is dist/switchyard-cni.js.
import '../dist/switchyard-cni.js';
