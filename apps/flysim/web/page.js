// The live page's script. It polls the service's JSON endpoints and draws
// what they answer; its controls are the control API's POST endpoints. No framework, no
// build step, nothing loaded from elsewhere. The server sends counts per time bin, never
// single spikes, so drawing costs the same at 800,000 spikes per second as at 8.
'use strict';

const RASTER_ROWS = 64;      // the most active neurons drawn
const TOP_NEURONS = 10;      // as many as flysim run's summary lists
// How often each endpoint is asked; bench/page_poller.py asks at the same rates.
const FAST_POLL_MS = 250;    // /spikes and /rates: the picture moves
const SLOW_POLL_MS = 500;    // /status and /top: figures a person reads
const READOUT_SMOOTHING_BINS = 5;  // the readout's rate per 20 ms bin is 0, 50, 100 Hz...

const $ = (id) => document.getElementById(id);

// ---- talking to the service

// A service with control.token-file needs its token: from the address (#token=...), or
// asked for once and kept for this tab.
let token = new URLSearchParams(location.hash.slice(1)).get('token') || sessionStorage.getItem('flysim-token') || '';
let askingForToken = false;

function askForToken() {
  if (askingForToken) return;
  askingForToken = true;
  const given = window.prompt('This service needs its token (the first line of its control.token-file):');
  askingForToken = false;
  if (given) {
    token = given.trim();
    sessionStorage.setItem('flysim-token', token);
  }
}

// One request; answers {status, json}. A missing or wrong token asks for it.
async function call(method, path, body) {
  const headers = {};
  if (token) headers.Authorization = 'Bearer ' + token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {method, headers, cache: 'no-store', body: body === undefined ? undefined : JSON.stringify(body)});
  let json = null;
  try {
    json = JSON.parse(await response.text());
  } catch (e) {
    json = null;
  }
  if (response.status === 401) askForToken();
  return {status: response.status, json};
}

async function getJSON(path) {
  const {status, json} = await call('GET', path);
  if (status !== 200) throw new Error(`GET ${path}: ${json && json.error ? json.error : 'HTTP ' + status}`);
  return json;
}

// ---- what the page holds: the bins of the window, the latest status

const raster = {key: null, rows: [], bins: new Map(), first: 0, next: 0, windowBins: 500, binMs: 20};
const rates = {bins: new Map(), first: 0, next: 0, neurons: 0, readout: null};
let dirty = true;

const rowKey = (rows) => rows.map((r) => r.id).join(',');

// The raster grows by the bins since the last answer while the same neurons lead; when
// others lead, it is fetched whole for them (each row needs its counts in every bin).
async function pollSpikes() {
  const incremental = raster.key !== null;
  let answer = await getJSON(`/spikes?since=${incremental ? raster.next : 0}&neurons=${RASTER_ROWS}`);
  if (answer.next < raster.next) raster.key = null;  // another service now answers here
  if (incremental && rowKey(answer.rows) !== raster.key) answer = await getJSON(`/spikes?since=0&neurons=${RASTER_ROWS}`);
  const key = rowKey(answer.rows);
  if (key !== raster.key) raster.bins.clear();
  Object.assign(raster, {key, rows: answer.rows, first: answer.first, next: answer.next, windowBins: answer.window_bins, binMs: answer.bin_ms});
  for (const bin of answer.bins) raster.bins.set(bin.pos, bin.counts);
  for (const pos of raster.bins.keys()) if (pos < answer.first) raster.bins.delete(pos);
  dirty = true;
}

async function pollRates() {
  const answer = await getJSON(`/rates?since=${rates.next}`);
  if (answer.next < rates.next) {  // another service now answers here
    rates.bins.clear();
    rates.next = 0;
    return;
  }
  for (const bin of answer.bins) rates.bins.set(bin.pos, bin);
  for (const pos of rates.bins.keys()) if (pos < answer.first) rates.bins.delete(pos);
  Object.assign(rates, {first: answer.first, next: answer.next, neurons: answer.neurons, readout: answer.readout});
  dirty = true;
}

async function pollStatus() {
  showStatus(await getJSON('/status'));
}

async function pollTop() {
  showTop(await getJSON(`/top?neurons=${TOP_NEURONS}`));
}

// ---- figures

const fmt = (x, digits) => Number(x).toLocaleString('en-US', {minimumFractionDigits: digits, maximumFractionDigits: digits});

function duration(seconds) {
  if (seconds < 60) return fmt(seconds, 2) + ' s';
  const s = Math.floor(seconds);
  const hms = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60].map((v) => String(v).padStart(2, '0'));
  return hms.join(':');
}

// Host cores per role, as `flysim cost` prints them: a row per role that ran (threads,
// cores, busiest thread), then the process; none until the service has measured a window.
function costRows(cost) {
  if (cost === null || typeof cost !== 'object' || !Array.isArray(cost.roles) || !(cost.window_s > 0)) return [];
  const rows = cost.roles.filter((r) => r.threads > 0 || r.cores > 0)
    .map((r) => [r.role, fmt(r.threads, 0), fmt(r.cores, 3), fmt(r.busiest_thread_cores, 3)]);
  rows.push([`process (${fmt(cost.window_s, 1)} s)`, Array.isArray(cost.threads) ? fmt(cost.threads.length, 0) : '',
             fmt(cost.process_cores, 3), '']);
  return rows;
}

function showCost(s) {
  const rows = costRows(s.cost);
  $('host-cores').textContent = rows.length > 0 ? fmt(s.host_cores, 2) : `${fmt(s.host_cores, 2)} (whole process)`;
  const body = document.querySelector('#host-cores-table tbody');
  body.replaceChildren(...rows.map((cells) => {
    const tr = document.createElement('tr');
    tr.replaceChildren(...cells.map((text, column) => {
      const td = document.createElement('td');
      td.textContent = text;
      if (column > 0) td.className = 'num';
      return td;
    }));
    return tr;
  }));
  $('host-cores-table').hidden = rows.length === 0;
}

let statusSeen = false;

function showStatus(s) {
  const state = $('state');
  state.textContent = s.state;
  state.className = 'badge ' + s.state;
  $('simulated').textContent = duration(s.simulated_s);
  $('wall-per-simulated').textContent = s.wall_per_simulated > 0
    ? `${fmt(s.wall_per_simulated, 3)} (${fmt(1 / s.wall_per_simulated, 1)}x real time)` : '-';
  $('pace').textContent = s.pace;
  $('lag').textContent = fmt(s.lag_ms, 1) + ' ms';
  $('engine').textContent = s.engine;
  $('threads').textContent = s.threads > 0 ? s.threads : '-';
  showCost(s);
  $('spike-rate').textContent = fmt(s.spikes_per_simulated_s, 0);
  $('stimulus').textContent = `${fmt(s.poisson_neurons, 0)} neurons at ${fmt(s.stimulus_rate_hz, 1)} Hz`;
  $('checkpoint-file').textContent = s.last_checkpoint ? 'last checkpoint: ' + s.last_checkpoint : '';
  if (!statusSeen) {  // the inputs start from what runs now
    statusSeen = true;
    $('rate-input').value = s.stimulus_rate_hz;
    if (s.threads > 0) $('threads-input').value = s.threads;
  }
}

function showTop(t) {
  $('top-caption').textContent = `over the last ${fmt(t.window_ms / 1000, 1)} s simulated`;
  const body = document.querySelector('#top tbody');
  body.replaceChildren(...t.top.map((n, k) => {
    const tr = document.createElement('tr');
    const flags = [n.stimulated ? 'stimulated' : '', n.readout ? 'MN9' : ''].filter(Boolean);
    const cells = [k + 1, n.id, fmt(n.rate_hz, 1), fmt(n.spikes, 0), flags.join(' ')];
    cells.forEach((text, c) => {
      const td = document.createElement('td');
      td.textContent = text;
      if (c === 2 || c === 3) td.className = 'num';
      if (c === 4) td.className = n.readout ? 'flags readout' : 'flags';
      tr.appendChild(td);
    });
    return tr;
  }));
}

// ---- drawing

const COLORS = {spike: [108, 196, 255], stimulated: [255, 180, 84], readout: [126, 231, 135], text: '#d8dee4', dim: '#7d8a96', grid: '#222a32'};
const GUTTER = 190;  // room for a root ID and its marks at the left of both charts
const AXIS = 18;     // room for the time axis below

// Fits the canvas to its size on screen, in device pixels; answers its context in CSS pixels.
function context(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const width = Math.round(canvas.clientWidth * ratio), height = Math.round(canvas.clientHeight * ratio);
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, canvas.clientWidth, canvas.clientHeight);
  return ctx;
}

// The time axis shared by both charts: the newest complete bin at the right edge.
function timeAxis(ctx, width, height) {
  const firstShown = raster.next - raster.windowBins;
  const x = (pos) => GUTTER + ((pos - firstShown) / raster.windowBins) * (width - GUTTER - 8);
  const binsPerSecond = 1000 / raster.binMs;
  ctx.font = '10px ui-monospace, monospace';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'alphabetic';
  for (let pos = Math.max(0, Math.ceil(firstShown / binsPerSecond) * binsPerSecond); pos <= raster.next; pos += binsPerSecond) {
    ctx.strokeStyle = COLORS.grid;
    ctx.beginPath();
    ctx.moveTo(x(pos), 0);
    ctx.lineTo(x(pos), height - AXIS);
    ctx.stroke();
    ctx.fillStyle = COLORS.dim;
    ctx.fillText(`${Math.round((pos * raster.binMs) / 1000)} s`, x(pos), height - 5);
  }
  return x;
}

const offscreen = document.createElement('canvas');

function drawRaster() {
  const canvas = $('raster');
  const ctx = context(canvas);
  const width = canvas.clientWidth, height = canvas.clientHeight;
  const x = timeAxis(ctx, width, height);
  const rows = raster.rows, columns = raster.windowBins;
  const rowHeight = (height - AXIS) / RASTER_ROWS;
  // One pixel per (bin, row) in an image drawn scaled: cheap whatever the spike rate.
  offscreen.width = columns;
  offscreen.height = Math.max(1, rows.length);
  const image = new ImageData(columns, Math.max(1, rows.length));
  const firstShown = raster.next - columns;
  let spikes = 0;
  for (const [pos, counts] of raster.bins) {
    const column = pos - firstShown;
    if (column < 0 || column >= columns) continue;
    counts.forEach((count, row) => {
      if (count === 0) return;
      spikes += count;
      const color = rows[row].readout ? COLORS.readout : rows[row].stimulated ? COLORS.stimulated : COLORS.spike;
      const at = (row * columns + column) * 4;
      image.data.set(color, at);
      image.data[at + 3] = Math.min(255, 75 + 45 * count);  // 1..4 spikes in a bin: four shades
    });
  }
  offscreen.getContext('2d').putImageData(image, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(offscreen, x(firstShown), 0, x(raster.next) - x(firstShown), rowHeight * Math.max(1, rows.length));
  ctx.textAlign = 'left';
  ctx.font = `${Math.min(11, Math.max(7, rowHeight - 1))}px ui-monospace, monospace`;
  ctx.textBaseline = 'middle';
  rows.forEach((row, k) => {
    const y = (k + 0.5) * rowHeight;
    if (row.stimulated || row.readout) {
      ctx.fillStyle = row.readout ? 'rgb(126,231,135)' : 'rgb(255,180,84)';
      ctx.beginPath();
      ctx.arc(8, y, Math.min(3.5, rowHeight / 2.5), 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.fillStyle = row.readout ? 'rgb(126,231,135)' : COLORS.text;
    ctx.fillText(row.readout ? `MN9 ${row.id}` : row.id, 16, y);
  });
  canvas.dataset.spikes = spikes;
  canvas.dataset.rows = rows.length;
  $('raster-caption').textContent = `the ${rows.length} most active neurons of the last ${fmt((raster.windowBins * raster.binMs) / 1000, 0)} s simulated, ${fmt(raster.binMs, 0)} ms bins`;
}

// A line of `values` (by bin position) scaled to its own maximum; answers that maximum.
function line(ctx, x, values, color, top, bottom) {
  const max = Math.max(1e-9, ...values.map(([, v]) => v));
  ctx.strokeStyle = color;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  values.forEach(([pos, v], k) => {
    const y = bottom - (v / max) * (bottom - top);
    if (k === 0) ctx.moveTo(x(pos + 0.5), y);
    else ctx.lineTo(x(pos + 0.5), y);
  });
  ctx.stroke();
  return max;
}

function drawRates() {
  const canvas = $('rates');
  const ctx = context(canvas);
  const width = canvas.clientWidth, height = canvas.clientHeight;
  const x = timeAxis(ctx, width, height);
  const bins = [...rates.bins.values()].sort((a, b) => a.pos - b.pos).filter((b) => b.pos >= raster.next - raster.windowBins);
  const population = bins.map((b) => [b.pos, b.population_hz]);
  const maxPopulation = line(ctx, x, population, 'rgb(108,196,255)', 8, height - AXIS - 2);
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  ctx.font = '11px ui-monospace, monospace';
  ctx.fillStyle = 'rgb(108,196,255)';
  ctx.fillText(`population, top ${fmt(maxPopulation, 3)} Hz`, 6, 8);
  if (bins.length > 0) ctx.fillText(`now ${fmt(bins[bins.length - 1].population_hz, 3)} Hz`, 6, 24);
  ctx.fillStyle = 'rgb(126,231,135)';
  if (rates.readout) {
    // A moving mean over a few bins: one spike in a 20 ms bin alone reads as 50 Hz.
    const smoothed = bins.map((b, k) => {
      const span = bins.slice(Math.max(0, k - READOUT_SMOOTHING_BINS + 1), k + 1);
      return [b.pos, span.reduce((sum, s) => sum + s.readout_hz, 0) / span.length];
    });
    const maxReadout = line(ctx, x, smoothed, 'rgb(126,231,135)', 8, height - AXIS - 2);
    ctx.fillText(`MN9, top ${fmt(maxReadout, 1)} Hz`, 6, 48);
    $('readout-label').textContent = `readout MN9 ${rates.readout.id}: ${fmt(rates.readout.rate_hz, 1)} Hz over the window (${READOUT_SMOOTHING_BINS}-bin mean)`;
  } else {
    $('readout-label').textContent = 'readout MN9: not in this network';
  }
}

function frame() {
  if (dirty) {
    dirty = false;
    const started = performance.now();
    drawRaster();
    drawRates();
    // What a redraw costs, for the browser test to report (it stays the same at any spike rate).
    $('raster').dataset.drawMs = (performance.now() - started).toFixed(2);
  }
  requestAnimationFrame(frame);
}

// ---- controls

const buttons = () => document.querySelectorAll('.controls button');
let messages = 0;

function say(kind, text) {
  const message = $('message');
  message.textContent = text;
  message.className = 'message ' + kind;
  message.dataset.count = ++messages;
}

// POST /<action> with `body`: the reply says where it took effect, or why not.
async function command(action, body) {
  buttons().forEach((b) => (b.disabled = true));
  try {
    const {status, json} = await call('POST', '/' + action, body);
    if (status === 200) say('ok', `${action}: ${json.message} (trial ${json.trial} step ${json.step})`);
    else say('refused', `${action}: ${json ? json.message || json.error : 'HTTP ' + status}`);  // says why
  } catch (e) {
    say('refused', `${action} failed: ${e.message}`);
  } finally {
    buttons().forEach((b) => (b.disabled = false));
  }
  poll(pollStatus).then(online, offline);
}

$('swap-cpu').addEventListener('click', () => command('swap', {engine: 'cpu', threads: Number($('threads-input').value)}));
$('swap-cuda').addEventListener('click', () => command('swap', {engine: 'cuda'}));
$('apply-rate').addEventListener('click', () => command('stimulus', {rate_hz: Number($('rate-input').value)}));
$('checkpoint').addEventListener('click', () => command('checkpoint'));
$('pause').addEventListener('click', () => command('pause'));
$('resume').addEventListener('click', () => command('resume'));
$('stop').addEventListener('click', () => {
  if (window.confirm('Stop the service? It finishes the epochs in flight, writes what it recorded and exits.')) command('stop');
});

// ---- the polling loops

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const poll = (...steps) => Promise.all(steps.map((step) => step()));

function online() {
  if ($('state').textContent === 'unreachable') $('state').textContent = 'connecting';
}

function offline(error) {
  const state = $('state');
  // fetch itself fails when nothing listens: the service has ended (or the tunnel is down).
  state.textContent = error instanceof TypeError ? 'unreachable' : state.textContent;
  state.className = 'badge ' + state.textContent;
  state.title = error.message;
}

// Each loop waits for its answers before the next round: a slow service is never flooded.
async function loop(period, ...steps) {
  for (;;) {
    const started = performance.now();
    await poll(...steps).then(online, offline);
    await sleep(Math.max(0, period - (performance.now() - started)));
  }
}

window.addEventListener('resize', () => (dirty = true));
loop(FAST_POLL_MS, pollSpikes, pollRates);
loop(SLOW_POLL_MS, pollStatus, pollTop);
requestAnimationFrame(frame);
