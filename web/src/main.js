// addnorm's pages work without JavaScript (a plain textarea and ordinary form posts); this
// bundle only enhances them: a CodeMirror editor, Ctrl/Cmd+Enter to submit, grading without a
// page reload with a spinner, drafts kept on the server (and locally until it has them), an
// interview's countdown, and KaTeX for formulas in prompts.
import { basicSetup } from "codemirror";
import { Decoration, EditorView, keymap } from "@codemirror/view";
import { Prec, StateEffect, StateField } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { indentUnit, syntaxHighlighting } from "@codemirror/language";
import { python, pythonLanguage } from "@codemirror/lang-python";
import { classHighlighter, highlightCode } from "@lezer/highlight";
import renderMathInElement from "katex/contrib/auto-render";

function submitForm(form) {
  if (typeof form.requestSubmit === "function") form.requestSubmit();
  else form.submit();
}

// The server keeps the learner's draft (it follows them to another browser): saved a moment
// after typing stops, and at once when the page is left. The form's CSRF token goes with it.
const SERVER_DRAFT_DELAY_MS = 800;

function serverDrafts(textarea) {
  const url = textarea.dataset.draftUrl;
  const form = textarea.form;
  if (!url || !form || !window.fetch) return null;
  const status = document.querySelector("[data-testid=draft-status]");
  let timer = null;
  let saved = textarea.value;
  const say = (key) => {
    if (status && status.dataset[key]) status.textContent = status.dataset[key];
  };
  const body = () => {
    const data = new FormData();
    data.set("csrf", form.elements.csrf ? form.elements.csrf.value : "");
    data.set("code", textarea.value);
    return data;
  };
  async function flush() {
    timer = null;
    const code = textarea.value;
    if (code === saved) return;
    say("saving");
    try {
      const response = await fetch(url, {
        method: "POST",
        body: body(),
        headers: { "X-Addnorm-Partial": "1" },
        credentials: "same-origin",
      });
      if (response.ok) {
        saved = code;
        say(textarea.value === code ? "saved" : "saving");
      } else {
        say("failed");
      }
    } catch {
      say("failed");
    }
  }
  // Leaving the page with unsaved edits: a beacon outlives the page (fetch may be cancelled).
  window.addEventListener("pagehide", () => {
    if (textarea.value === saved || !navigator.sendBeacon) return;
    if (navigator.sendBeacon(url, body())) saved = textarea.value;
  });
  return {
    changed() {
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(flush, SERVER_DRAFT_DELAY_MS);
    },
  };
}

// A local copy of the draft, per learner and exercise, with the code the server offered when
// editing began: it covers the moment before the server's copy is written (a reload right after
// typing). Once the server's code changes (saved, or a submission from elsewhere) it is dropped.
function draftStore(textarea) {
  const key = textarea.dataset.draftKey;
  if (!key) return null;
  let base = textarea.value;
  return {
    // A submission graded in place makes its code the server's: the new base, no draft.
    // Edits made while it was being graded stay a draft.
    rebase(submitted, current) {
      base = submitted;
      this.save(current);
    },
    load() {
      try {
        const saved = JSON.parse(localStorage.getItem(key) || "null");
        return saved && saved.base === base ? saved.code : null;
      } catch {
        return null;
      }
    },
    save(code) {
      try {
        if (code === base) localStorage.removeItem(key);
        else localStorage.setItem(key, JSON.stringify({ base, code }));
      } catch {
        // Storage full or disabled: the draft is a convenience, never a requirement.
      }
    },
  };
}

// The line (and column, for a syntax error) the verdict blames, marked in the editor: a tinted
// line and, where the column is known, the character underlined. Cleared by the next edit.
const markError = StateEffect.define();
const errorMarks = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    for (const effect of tr.effects) if (effect.is(markError)) return effect.value;
    return tr.docChanged ? Decoration.none : marks;
  },
  provide: (field) => EditorView.decorations.from(field),
});

function errorDecorations(doc, lineNumber, column) {
  if (!Number.isInteger(lineNumber) || lineNumber < 1 || lineNumber > doc.lines) return null;
  const line = doc.line(lineNumber);
  const ranges = [Decoration.line({ class: "cm-error-line", attributes: { "data-testid": "error-marker", "data-line": String(lineNumber) } }).range(line.from)];
  if (Number.isInteger(column) && column >= 1 && line.length > 0) {
    const from = line.from + Math.min(column - 1, line.length - 1);
    ranges.push(Decoration.mark({ class: "cm-error-char" }).range(from, from + 1));
  }
  return Decoration.set(ranges, true);
}

const editors = new Map(); // textarea id -> EditorView

function showVerdictError(root) {
  const verdict = root.querySelector("[data-testid=verdict][data-error-line]");
  const view = editors.get("code");
  if (!view) return;
  if (!verdict) {
    view.dispatch({ effects: markError.of(Decoration.none) });
    return;
  }
  const line = Number.parseInt(verdict.dataset.errorLine, 10);
  const column = Number.parseInt(verdict.dataset.errorColumn || "", 10);
  const marks = errorDecorations(view.state.doc, line, column);
  if (!marks) return;
  const at = view.state.doc.line(line).from;
  view.dispatch({ effects: [markError.of(marks), EditorView.scrollIntoView(at, { y: "center" })] });
  for (const link of root.querySelectorAll(".error-line")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      showPane("code");
      view.dispatch({ selection: { anchor: at } });
      view.focus();
    });
  }
}

function mountEditor(textarea) {
  const form = textarea.form;
  const drafts = draftStore(textarea);
  const remote = serverDrafts(textarea);
  const draft = drafts && drafts.load();
  if (draft !== null && draft !== undefined) textarea.value = draft;
  const label = document.querySelector(`label[for="${textarea.id}"]`);
  // CodeMirror writes its generated rules into one <style> element: the page's CSP admits it
  // by this response's nonce (and nothing else inline).
  const nonce = document.querySelector('meta[name="style-nonce"]');
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      EditorView.cspNonce.of(nonce ? nonce.content : ""),
      basicSetup,
      errorMarks,
      python(),
      indentUnit.of("    "),
      syntaxHighlighting(classHighlighter),
      // Highest precedence: basicSetup binds Mod-Enter to "insert blank line".
      Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (submitForm(form), true) }])),
      keymap.of([indentWithTab]),
      EditorView.contentAttributes.of({
        "aria-label": label ? label.textContent.trim() : "Code",
        "data-testid": "editor",
        // Focusable in its own right, so the scroller around it counts as keyboard-reachable.
        tabindex: "0",
      }),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        textarea.value = update.state.doc.toString();
        if (drafts) drafts.save(textarea.value);
        if (remote) remote.changed();
      }),
    ],
  });
  textarea.classList.add("enhanced");
  textarea.setAttribute("aria-hidden", "true");
  textarea.tabIndex = -1;
  textarea.after(view.dom);
  editors.set(textarea.id, view);
  if (label) label.addEventListener("click", () => view.focus());
  if (drafts) {
    form.addEventListener("addnorm:graded", (event) =>
      drafts.rebase(event.detail.code, textarea.value),
    );
  }
  return view;
}

function enhanceTextarea(textarea) {
  // Without the editor (it failed to load), the shortcut still works on the bare textarea.
  textarea.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submitForm(textarea.form);
    }
  });
}

// Grade without leaving the page: the server answers a partial (the results region) when asked.
function gradeInPlace(form) {
  const target = document.getElementById(form.dataset.target);
  const button = form.querySelector("button[type=submit]");
  const spinner = form.querySelector(".spinner");
  let busy = false;
  form.addEventListener("submit", async (event) => {
    if (!target || !window.fetch) return;
    // Another button of the form (Save draft) posts where it says, as without script.
    if (event.submitter && event.submitter.hasAttribute("formaction")) return;
    event.preventDefault();
    if (busy) return;
    busy = true;
    form.setAttribute("aria-busy", "true");
    if (button) button.disabled = true;
    if (spinner) spinner.hidden = false;
    try {
      const body = new FormData(form);
      const response = await fetch(form.action, {
        method: "POST",
        body,
        headers: { "X-Addnorm-Partial": "1" },
        credentials: "same-origin",
      });
      if (response.ok) {
        form.dispatchEvent(new CustomEvent("addnorm:graded", { detail: { code: body.get("code") } }));
      }
      const type = response.headers.get("content-type") || "";
      if (type.startsWith("text/html")) {
        // Server-rendered and escaped by the template engine: safe to insert.
        target.innerHTML = await response.text();
      } else {
        target.textContent = `${response.status} ${response.statusText}`;
      }
    } catch (error) {
      target.textContent = form.dataset.networkError || "Network error: please retry.";
    } finally {
      busy = false;
      form.removeAttribute("aria-busy");
      if (button) button.disabled = false;
      if (spinner) spinner.hidden = true;
      enhanceResults(target);
      showPane("result");
      // On a phone the header stands above the tabs: bring the tabs to the top of the screen
      // so the verdict's first failing check is in view.
      const workbench = target.closest("[data-workbench]");
      if (workbench && NARROW.matches) {
        const top = workbench.getBoundingClientRect().top + window.scrollY;
        if (window.scrollY < top) window.scrollTo({ top, behavior: "instant" });
      }
      const pane = target.closest(".pane");
      if (pane) pane.scrollTop = 0;
      const heading = target.querySelector("[data-focus]");
      if (heading) heading.focus({ preventScroll: true });
    }
  });
}

function renderMath(root = document) {
  for (const element of root.querySelectorAll(".prose")) {
    renderMathInElement(element, {
      delimiters: [
        { left: "$$", right: "$$", display: true },
        { left: "\\[", right: "\\]", display: true },
        { left: "\\(", right: "\\)", display: false },
        { left: "$", right: "$", display: false },
      ],
      throwOnError: false,
    });
  }
  // A wide formula scrolls sideways in a narrow pane: a scrolling region must be reachable by
  // keyboard (WCAG 2.1.1), so each display formula is focusable.
  for (const display of root.querySelectorAll(".katex-display")) display.tabIndex = 0;
}

// The exercise's panes as tabs when the screen is too narrow for three columns: switching is
// instant, nothing scrolls. On a wide screen the tab list stays hidden and every pane shows.
const NARROW = window.matchMedia("(max-width: 900px)");
let showPane = () => {};

function paneTabs(workbench) {
  const tabs = workbench.querySelector("[data-tabs]");
  if (!tabs) return;
  const buttons = [...tabs.querySelectorAll("[role=tab]")];
  const select = (name, focus = false) => {
    for (const button of buttons) {
      const on = button.dataset.tab === name;
      button.setAttribute("aria-selected", on ? "true" : "false");
      button.tabIndex = on ? 0 : -1;
      if (on && focus) button.focus();
    }
    workbench.dataset.active = name;
  };
  // Tab roles only while the panes are tabs; on a wide screen they are plain regions.
  const mode = () => {
    const narrow = NARROW.matches;
    tabs.hidden = !narrow;
    workbench.classList.toggle("tabbed", narrow);
    for (const pane of workbench.querySelectorAll("[data-pane]")) {
      if (!("labelledby" in pane.dataset)) pane.dataset.labelledby = pane.getAttribute("aria-labelledby") || "";
      if (narrow) {
        pane.setAttribute("role", "tabpanel");
        pane.setAttribute("aria-labelledby", `tab-${pane.dataset.pane}`);
      } else {
        pane.removeAttribute("role");
        if (pane.dataset.labelledby) pane.setAttribute("aria-labelledby", pane.dataset.labelledby);
        else pane.removeAttribute("aria-labelledby");
      }
    }
  };
  mode();
  NARROW.addEventListener("change", mode);
  tabs.addEventListener("click", (event) => {
    const button = event.target.closest("[role=tab]");
    if (button) select(button.dataset.tab);
  });
  tabs.addEventListener("keydown", (event) => {
    const at = buttons.findIndex((b) => b.getAttribute("aria-selected") === "true");
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    select(buttons[(at + step + buttons.length) % buttons.length].dataset.tab, true);
  });
  // A page that opens on a verdict (after a post without script, or a reload) shows it.
  const opened = workbench.querySelector("[data-testid=verdict]") && location.hash === "#results";
  select(opened ? "result" : "code");
  showPane = (name) => select(name);
}

// Forms that swap one region of the page for the server's partial (a hint, the solution).
function replaceInPlace(form) {
  form.addEventListener("submit", async (event) => {
    const target = document.getElementById(form.dataset.replace);
    if (!target || !window.fetch) return;
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    if (button) button.disabled = true;
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body: new FormData(form),
        headers: { "X-Addnorm-Partial": "1" },
        credentials: "same-origin",
      });
      const type = response.headers.get("content-type") || "";
      if (!type.startsWith("text/html")) throw new Error(String(response.status));
      // Server-rendered and escaped by the template engine: safe to insert.
      const holder = document.createElement("div");
      holder.innerHTML = await response.text();
      const fresh = holder.firstElementChild;
      if (!fresh) throw new Error("empty");
      target.replaceWith(fresh);
      enhanceRegion(fresh);
      const shown = form.dataset.show && document.getElementById(form.dataset.show);
      if (shown) {
        // Asked for from the result pane: the solution is in the prompt's pane.
        showPane("prompt");
        shown.scrollIntoView({ block: "start" });
        shown.focus({ preventScroll: true });
      } else {
        const focus = fresh.querySelector("[data-focus-after]");
        if (focus) focus.focus();
      }
    } catch {
      form.submit();
    }
  });
}

// Code shown read-only (the worked solution), highlighted in place: the <pre> keeps its text
// exactly (nothing virtualised, copy and paste as written), each token wrapped in a class span.
function highlightPre(pre) {
  const code = pre.textContent;
  const tree = pythonLanguage.parser.parse(code);
  const out = document.createDocumentFragment();
  highlightCode(
    code,
    tree,
    classHighlighter,
    (text, classes) => {
      if (!classes) {
        out.append(text);
        return;
      }
      const span = document.createElement("span");
      span.className = classes;
      span.textContent = text;
      out.append(span);
    },
    () => out.append("\n"),
  );
  pre.replaceChildren(out);
  pre.classList.add("highlighted");
}

function copyButtons(root) {
  for (const button of root.querySelectorAll("[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        button.textContent = button.dataset.copied || button.textContent;
      } catch {
        button.textContent = button.dataset.failed || button.textContent;
      }
    });
  }
}

function enhanceRegion(root) {
  for (const form of root.querySelectorAll("form[data-replace]")) replaceInPlace(form);
  for (const pre of root.querySelectorAll("pre[data-highlight]")) highlightPre(pre);
  copyButtons(root);
  renderMath(root);
}

function enhanceResults(root) {
  enhanceRegion(root);
  showVerdictError(root);
}

// A running interview's clock, counted down from the server's deadline; when it reaches zero
// the page reloads once, and the server (which holds the real deadline) shows the report.
function countDown(element) {
  const deadline = Date.parse(element.dataset.deadline || "");
  if (Number.isNaN(deadline)) return;
  let reloaded = false;
  const tick = () => {
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    const minutes = Math.floor(left / 60);
    const seconds = String(left % 60).padStart(2, "0");
    element.textContent = `${minutes}:${seconds}`;
    if (left === 0 && !reloaded) {
      reloaded = true;
      window.location.reload();
    }
  };
  tick();
  setInterval(tick, 1000);
}

function main() {
  document.documentElement.classList.add("js");
  for (const textarea of document.querySelectorAll("textarea[data-editor]")) {
    try {
      mountEditor(textarea);
    } catch (error) {
      console.warn("editor unavailable, keeping the plain textarea", error);
      enhanceTextarea(textarea);
    }
  }
  for (const form of document.querySelectorAll("form[data-target]")) gradeInPlace(form);
  for (const clock of document.querySelectorAll("[data-countdown]")) countDown(clock);
  const workbench = document.querySelector("[data-workbench]");
  if (workbench) paneTabs(workbench);
  enhanceRegion(document);
  showVerdictError(document);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", main);
else main();
