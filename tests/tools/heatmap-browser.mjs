// Opens an fgagent heatmap page in headless Chromium and checks it as a user would.
// Usage: node heatmap-browser.mjs FILE MODE [ARGS...]
//   smoke [SHOT]            loads with no console error, draws squares; SHOT: screenshots SHOT-scaleN.png
//   range FROM TO [EVENT]   prints the flame graph of [FROM, TO) (ms since 1970) of EVENT (cpu, alloc, lock, ...;
//                           default the first): RANGE_MS, UNTIMED (stored without a time), TOTAL
//   narrow THREAD REGEX               a thread filter and a search ("" none): prints their sums over the
//                                     whole page by squares and by cells, and the columns read for them
//   diff FROM TO BFROM BTO [THREAD]  the differential view (of one thread's samples with THREAD) of [FROM, TO) against [BFROM, BTO) (ms since 1970): prints
//                           each changed frame as CHANGE <change> <points> <name>, in the page's order
//   empty                   a page with no sample loads and says so
//   weights                 prints each stack's weight and samples in ranges spread over the page (all threads,
//                           then each thread) and a checksum of each cell's weights in three columns: the same
//                           for two pages of one recording whose sample coding differs
//   sizes                   prints the bytes of the page's parts: HEAD_TEXT, HEAD_RAW (inflated), COLUMNS,
//                           COLUMNS_TEXT, COLUMNS_DEFLATED, COLUMNS_RAW, and REST (the page but its data)
//   time                    prints LOAD_MS (page open to drawn) and RANGE_MS for a 1-minute and a whole-span range
import { resolve } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(process.env.FG_NPM + "/");
const { chromium } = require("playwright-core");
const [file, mode, ...args] = process.argv.slice(2);
let failures = 0;
function check(ok, message) {
  if (!ok) { console.error("FAIL: " + message); failures++; }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  const t0 = Date.now();
  await page.goto("file://" + resolve(file));
  await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 60000 });
  check(await page.evaluate(() => document.body.dataset.ready === "1"),
        "the page did not load: " + await page.evaluate(() => document.getElementById("status").textContent));
  const loadMs = Date.now() - t0;
  check(errors.length === 0, "console errors: " + errors.join(" | "));
  check(await page.evaluate(() => window.pwned === undefined && document.querySelectorAll("img").length === 0),
        "a frame name became HTML or ran as script");
  const state = await page.evaluate(() => window.heatmapState());
  const start = await page.evaluate(() => JSON.parse(document.getElementById("header").textContent).startEpochNs);
  const ns = (ms) => Number(ms) * 1e6 - start;   // ms since 1970 to ns after the page's start
  check(state.cells > 0, "no cell");
  if (mode === "empty") {
    check(await page.evaluate(() => /no timed sample/.test(document.getElementById("status").textContent)),
          "an empty recording's page does not say it has no sample");
  } else if (mode === "smoke") {
    // some square is coloured: a pixel of the heatmap canvas is neither white nor the empty grey
    const coloured = await page.evaluate(() => {
      const c = document.getElementById("hm"), d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      for (let i = 0; i < d.length; i += 4) if (d[i] === 255 && d[i + 1] < 230 && d[i + 2] < 210) return true;
      return false;
    });
    check(coloured, "no square is coloured");
    console.log("EVENTS " + state.events.join(",") + " THREADS " + state.threads + " MARKS " + state.marks);
    if (args[0]) {
      const r = await page.evaluate(() => window.heatmapSelect(0, 2e9));
      check(r.total > 0, "the first 2 s have no sample");
      for (const s of [0, 1, 2]) {
        await page.click(`button[data-scale="${s}"]`);
        await page.screenshot({ path: `${args[0]}-scale${s}.png`, fullPage: true });
      }
    }
  } else if (mode === "range") {
    if (args[2]) check(await page.evaluate((e) => window.heatmapEvent(e), args[2]), "no event " + args[2] + " on the page");
    const r = await page.evaluate(([a, b]) => window.heatmapSelect(a, b), [ns(args[0]), ns(args[1])]);
    console.log("RANGE_MS " + r.ms + " UNTIMED " + r.untimed + " TOTAL " + r.total);
  } else if (mode === "diff") {
    if (args[4]) check(await page.evaluate((t) => window.heatmapThread(t), args[4]), "no thread " + args[4] + " on the page");
    await page.evaluate(([a, b]) => window.heatmapSelect(a, b, true), [ns(args[2]), ns(args[3])]);
    const r = await page.evaluate(([a, b]) => window.heatmapSelect(a, b), [ns(args[0]), ns(args[1])]);
    check(r.rows !== null, "no differential view");
    for (const row of r.rows || []) console.log("CHANGE " + row.change + " " + row.points.toFixed(2) + " " + row.name);
    console.log("ROWS " + (r.rows || []).length);
  } else if (mode === "narrow") {
    // a thread filter ("" none) and a search ("" none): the narrowed sums by squares and by cells
    // against every sample decoded; and how many columns were read for them
    const r = await page.evaluate(([t, q]) => window.heatmapNarrow(t, q), [args[0] || "", args[1] || ""]);
    check(r !== null, "no thread " + args[0] + " on the page");
    console.log("NARROW SQUARES " + r.squares + " CELLS " + r.cells + " WANT " + r.want + " HITS " + r.hits +
                " CELLHITS " + r.cellHits + " WANTHITS " + r.wantHits + " READ " + r.read + " OF " + r.columns);
    check(r.squares === r.want && r.cells === r.want, "narrowed weight differs from the samples'");
    check(r.hits === r.wantHits && r.cellHits === r.wantHits, "narrowed hits differ from the samples'");
  } else if (mode === "weights") {
    const out = await page.evaluate(async () => {
      const lines = [], n = H.cells;
      let x = 12345;
      const rnd = (m) => (x = (x * 1103515245 + 12345) % 2147483648) % Math.max(1, m);
      const ranges = [[0, n]];
      for (let i = 0; i < 24; i++) {
        const a = rnd(n);
        ranges.push([a, Math.min(n, a + 1 + rnd(i % 3 ? 40000 : 300))]);
      }
      const dump = async (label, [a, b]) => {
        const { w, k } = await rangeWeights(a, b), parts = [];
        for (let s = 0; s < w.length; s++) if (w[s] || k[s]) parts.push(s + ":" + w[s] + ":" + k[s]);
        lines.push(label + " " + a + " " + b + " " + parts.join(" "));
      };
      for (const r of ranges) await dump("RANGE", r);
      for (let t = 0; t < D.threads.length; t++) {
        st.thread = t;
        for (const r of ranges.slice(0, 4)) await dump("THREAD " + t, r);
      }
      st.thread = -1;
      for (const col of new Set([0, Math.floor(D.cols.length / 2), D.cols.length - 1])) {
        await loadColumn(col);
        const sums = columnCells(col);
        for (const key of Object.keys(sums).sort()) {
          let h = 0;
          sums[key].forEach((v, i) => { h = (h * 31 + v * (i + 1)) % 1e9; });
          lines.push("CELLS " + col + " " + key + " " + h);
        }
      }
      return lines.join("\n");
    });
    console.log(out);
  } else if (mode === "sizes") {
    const r = await page.evaluate(async () => {
      const utf8 = (a, z) => { let n = 0; for (let i = a; i < z; i++) n += TEXT.text.charCodeAt(i) < 128 ? 1 : 2; return n; };
      const out = { HEAD_TEXT: utf8(TEXT.at[0][0], TEXT.at[0][1]), HEAD_RAW: (await part(0)).length, COLUMNS: TEXT.at.length - 1,
                    COLUMNS_TEXT: 0, COLUMNS_DEFLATED: 0, COLUMNS_RAW: 0 };
      for (let i = 1; i < TEXT.at.length; i++) {
        out.COLUMNS_TEXT += utf8(TEXT.at[i][0], TEXT.at[i][1]);
        out.COLUMNS_DEFLATED += text7(TEXT.text, TEXT.at[i][0], TEXT.at[i][1]).length;
        out.COLUMNS_RAW += (await part(i)).length;
      }
      out.DATA = utf8(0, TEXT.text.length);
      return out;
    });
    const { statSync } = await import("node:fs");
    r.REST = statSync(file).size - r.DATA;
    console.log(Object.entries(r).map(([k, v]) => k + " " + v).join(" "));
  } else if (mode === "time") {
    const r1 = await page.evaluate(() => window.heatmapSelect(0, 60e9));
    const dur = await page.evaluate(() => JSON.parse(document.getElementById("header").textContent).durationNs);
    const r2 = await page.evaluate((d) => window.heatmapSelect(0, d), dur);
    console.log("LOAD_MS " + loadMs + " LOAD_PAGE_MS " + (await page.evaluate(() => document.body.dataset.loadMs)) +
                " RANGE_MS " + r1.ms + " WHOLE_MS " + r2.ms);
  } else {
    check(false, "unknown mode " + mode);
  }
} finally {
  await browser.close();
}
process.exit(failures ? 1 : 0);
