// Copies the chart library the page serves out of node_modules, so that
// colltuned reads a fixed list of files from web/ and the page needs no
// network at run time. Run by `npm ci` (postinstall).
const fs = require('fs');
const path = require('path');
const from = path.join(__dirname, 'node_modules', 'chart.js', 'dist', 'chart.umd.min.js');
const to = path.join(__dirname, 'vendor', 'chart.umd.js');
fs.mkdirSync(path.dirname(to), { recursive: true });
fs.copyFileSync(from, to);
