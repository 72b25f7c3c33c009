// The chat screen: renders the party's own view (sent by the server over a websocket) and sends
// moves. Every piece of text from the server is put in the page with textContent, never as HTML.
//
// The move controls come from the task's action schema (`state.schema`, see duologue.core.moves):
// one group per legal move kind, with inputs bounded as the schema says. A task may ship a richer
// widget (`state.widget`, a script in the task's own folder) that registers itself with
// `duologueChat.widget({...})` and draws its private view, some moves and its event texts; the
// generic form draws everything the widget leaves.
(function () {
  "use strict";
  var root = document.getElementById("chat");
  var token = root.dataset.token;
  var $ = function (id) { return document.getElementById(id); };
  var state = null, ws = null, deadline = null, typingTimer = null, lastTypingSent = 0, retry = 0;
  var privateKey = null, widget = null, widgetLoading = null;
  var drafts = {};  // kind -> the values typed so far, kept across re-renders

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "class") node.className = attrs[k];
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), attrs[k]);
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  function can(kind) { return state && state.legal.indexOf(kind) >= 0; }
  function showError(text) { var e = $("error"); e.textContent = text || ""; e.hidden = !text; }
  function words(name) { var s = String(name).replace(/[_-]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase(); return s.charAt(0).toUpperCase() + s.slice(1); }
  function options() { return (state && state.schema && state.schema.oneOf) || []; }
  function schemaFor(kind) { return options().filter(function (o) { return o.properties.kind.const === kind; })[0] || null; }
  function scalar(v) { return v === null || v === undefined ? "" : (typeof v === "object" ? rowText(v) : String(v)); }
  function rowText(v) {
    if (Array.isArray(v)) return v.map(scalar).join(", ");
    return Object.keys(v).map(function (k) { return words(k) + ": " + scalar(v[k]); }).join(" · ");
  }

  // ------------------------------------------------------------------ connection
  function connect() {
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(proto + location.host + "/ws/chat/" + encodeURIComponent(token) + "?frames=delta");
    ws.onopen = function () {
      retry = 0; $("connection").hidden = true;
      if (pending) send(pending.frame);  // a move sent as the connection dropped: same id, so made once
    };
    ws.onmessage = function (ev) { receive(JSON.parse(ev.data)); };
    ws.onclose = function (ev) {
      if (state && state.done) return;
      var c = $("connection"); c.hidden = false;
      if (ev.code === 4403 || ev.code === 1008 || ev.code === 4500 || ev.code === 4409) { c.textContent = ev.reason || "This seat cannot be opened here."; return; }
      c.textContent = "Connection lost; reconnecting…";
      retry += 1; setTimeout(connect, Math.min(1000 * retry, 5000));
    };
  }
  function send(frame) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(frame)); }
  // Each move carries an id of its own: sent again after a lost connection or a 503, the server
  // makes it once and acknowledges the repeat.
  var pending = null;
  function moveId() { return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 10); }
  function move(action) {
    showError("");
    pending = { frame: { type: "move", action: action, move_id: moveId() }, tries: 0 };
    send(pending.frame);
  }
  function moveAnswered(msg) {
    if (!pending || msg.move_id !== pending.frame.move_id) return false;
    if (msg.type === "error" && msg.status === 503 && pending.tries < 5) {
      pending.tries += 1; showError("Sending again…");
      var frame = pending.frame; setTimeout(function () { if (pending && pending.frame === frame) send(frame); }, 1000 * pending.tries);
      return true;
    }
    pending = null;
    if (msg.type === "error") showError(msg.reason); else { showError(""); drafts = {}; }
    return true;
  }

  // After the first full state, the server sends only what changed (`delta`: the changed keys and
  // the transcript from `events_from` on, numbered by `seq`); on a gap, ask for the whole state again.
  function applyDelta(msg) {
    if (!state || msg.seq !== state.seq + 1) { send({ type: "resync" }); return null; }
    var next = {};
    Object.keys(state).forEach(function (k) { next[k] = state[k]; });
    Object.keys(msg.changed || {}).forEach(function (k) { next[k] = msg.changed[k]; });
    if (msg.events_from !== undefined) next.events = state.events.slice(0, msg.events_from).concat(msg.events);
    next.seq = msg.seq;
    return next;
  }
  function receive(msg) {
    if (msg.type === "delta") { msg = applyDelta(msg); if (!msg) return; msg.type = "state"; }
    if (msg.type === "state") {
      var last = msg.events.length ? msg.events[msg.events.length - 1] : null;
      if (!state || msg.events.length > state.events.length && last && last.party !== msg.party) { $("typing").textContent = ""; clearTimeout(typingTimer); }
      state = msg; loadWidget(); render();
      if (msg.done || msg.partner_left) $("connection").hidden = true;  // nobody to wait for any more
    }
    else if (msg.type === "typing") {
      $("typing").textContent = "Your partner is typing…";
      clearTimeout(typingTimer); typingTimer = setTimeout(function () { $("typing").textContent = ""; }, 3000);
    } else if (msg.type === "partner") {
      var c = $("connection");
      c.hidden = msg.connected;
      c.textContent = msg.connected ? "" : "Your partner lost their connection. Waiting up to " + Math.round(msg.reconnect_seconds) + " s for them to come back…";
    } else if (msg.type === "ack") { moveAnswered(msg); }
    else if (msg.type === "error") { if (!moveAnswered(msg)) showError(msg.reason); }
  }

  // ------------------------------------------------------------------ a task's own widget
  var api = {
    el: el, move: move, can: can, showError: showError, words: words, rowText: rowText, schemaFor: schemaFor,
    state: function () { return state; },
    genericForm: function (box, kind) { var o = schemaFor(kind); if (o) box.appendChild(moveForm(o)); }
  };
  window.duologueChat = {
    widget: function (w) { widget = w; privateKey = null; if (state) render(); }
  };
  function loadWidget() {
    if (!state.widget || widgetLoading === state.widget) return;
    widgetLoading = state.widget;
    document.body.appendChild(el("script", { src: state.widget, id: "task-widget" }));
  }
  function hook(name) { return widget && typeof widget[name] === "function" ? widget[name] : null; }

  // ------------------------------------------------------------------ rendering
  function render() {
    var key = state.task + "|" + state.party + "|" + (widget ? "w" : "g");
    if (key !== privateKey) { renderPrivate(); privateKey = key; }
    else if (hook("refresh")) hook("refresh")(api);
    renderTranscript();
    renderControls();
    if (state.seconds_left !== null && state.seconds_left !== undefined) deadline = Date.now() + state.seconds_left * 1000;
    else deadline = null;
    var left = $("turns-left");
    // moves left mean something while one may still talk; a person whose only move is a closing one (a private choice) has one
    var closing = state.legal.length > 0 && !can("say");
    left.textContent = state.done || state.turns_left === null || state.turns_left === undefined ? "" : (closing ? "Your move" : state.turns_left + (state.turns_left === 1 ? " move left" : " moves left"));
    tick();
  }

  function eventText(e, own) {
    var custom = hook("eventText") && hook("eventText")(e, own, api);
    if (custom) return custom;
    if (e.kind === "message") return e.text;
    if (e.kind === "system") return systemText(e);
    var fields = Object.keys(e).filter(function (k) { return ["kind", "party", "time", "extra", "own"].indexOf(k) < 0; });
    var detail = fields.map(function (k) { return words(k) + ": " + scalar(e[k]); }).join("; ");
    return words(e.kind) + (detail ? ": " + detail : "") + ".";  // who made it is the bubble's label
  }
  function systemText(e) {
    var theirs = !(e.data && e.data.party === state.party);
    if (e.name === "handover") return theirs ? "Your partner left; a bot plays their part from here on." : "You were away too long; a bot plays your part from here on.";
    if (e.name === "partner_left") return theirs ? "Your partner left, so the dialogue has ended. This is not your doing: you still get your completion code." : "You were away too long, so the dialogue has ended.";
    return "The dialogue ended (" + String(e.name || "over").replace(/_/g, " ") + ").";
  }
  function renderTranscript() {
    var list = $("transcript");
    list.textContent = "";
    state.events.forEach(function (e) {
      var own = e.party !== null && e.party === state.party;
      var cls = e.kind === "system" ? "system" : (own ? "mine" : "theirs");
      if (e.kind !== "message" && e.kind !== "system") cls += " move";
      var label = e.party === null ? "" : (own ? "You" : "Partner");
      list.appendChild(el("li", { class: cls }, [el("span", { class: "who", text: label }), el("bdi", {}, [eventText(e, own)])]));
    });
    list.scrollTop = list.scrollHeight;
  }

  function renderControls() {
    var done = state.done;
    $("say-input").disabled = done || !can("say");
    $("say-button").disabled = done || !can("say");
    $("say-input").placeholder = can("say") ? "Type a message…" : (done ? "The dialogue is over." : (state.legal.length ? "Chat is closed: see below." : "Wait for your partner…"));
    var box = $("actions"); box.textContent = "";
    if (!done) {
      var handled = (hook("controls") && hook("controls")(box, api)) || [];
      options().forEach(function (o) {
        var kind = o.properties.kind.const;
        if (kind !== "say" && handled.indexOf(kind) < 0) box.appendChild(moveForm(o));
      });
      if (!options().length && state.legal.length === 0) box.appendChild(el("p", { class: "notice", text: "Waiting for your partner…" }));
    }
    var end = $("end");
    if (done) {
      end.hidden = false; end.textContent = "";
      var o = state.outcome || {};
      var lines = [outcomeText(o)];
      var extra = hook("outcome") ? hook("outcome")(o, api) : (o.score !== null && o.score !== undefined && state.score_label ? "Your score: " + o.score + " (" + state.score_label + ")." : null);
      if (extra) lines.push(extra);
      end.appendChild(el("p", { text: lines.join(" ") }));
      if (state.questionnaire_url) {
        var link = el("a", { class: "button", href: state.questionnaire_url, id: "to-questionnaire", text: "Continue to the questionnaire" });
        end.appendChild(link); link.focus();
      }
      $("clock").textContent = "";
    } else end.hidden = true;
  }
  function outcomeText(o) {
    var reason = (o.reason || state.end_reason || "").replace(/_/g, " ");
    if (o.agreed === true) return "Done: you reached an agreement.";
    if (reason === "success") return "Done: you succeeded together!";
    if (reason === "completed") return "The conversation is complete. Thank you!";
    if (reason === "disconnect") return "Your partner left the conversation, so it has ended.";
    if (state.end_reason === "partner_left") return state.partner_left ? "Your partner left, so the dialogue has ended. Please continue to the questionnaire for your completion code." : "You were away too long, so the dialogue has ended.";
    if (reason === "interrupted") return "The platform restarted and this dialogue was cut short; it is not your doing. Please continue to the questionnaire for your completion code.";
    return "The dialogue has ended (" + (reason || "over") + ").";
  }

  // ------------------------------------------------------------------ private view
  function renderPrivate() {
    var box = $("private"); box.textContent = "";
    if (hook("private") && hook("private")(box, api)) return;
    if (state.role) box.appendChild(el("p", {}, [el("strong", { text: "Your role: " }), words(state.role)]));
    var shown = valueList(state.private || {}, "Only you see this");
    if (shown) box.appendChild(shown);
    var pub = valueList(state.public || {}, "You both see this");
    if (pub) box.appendChild(pub);
  }
  function valueList(values, caption) {
    var keys = Object.keys(values).filter(function (k) { var v = values[k]; return v !== null && v !== undefined && v !== "" && !(Array.isArray(v) && !v.length); });
    if (!keys.length) return null;
    var list = el("dl", { class: "values", "aria-label": caption });
    keys.forEach(function (k) {
      var v = values[k];
      list.appendChild(el("dt", { text: words(k) }));
      if (Array.isArray(v) && v.length && typeof v[0] === "object" && v[0] !== null) list.appendChild(el("dd", { class: "rows" }, [rowsTable(v)]));
      else list.appendChild(el("dd", { text: scalar(v) }));
    });
    return el("div", {}, [el("p", { class: "meta", text: caption + ":" }), list]);
  }
  function rowsTable(rows) {
    var cols = Object.keys(rows[0]);
    var head = el("tr", {}, cols.map(function (c) { return el("th", { scope: "col", text: words(c) }); }));
    var body = rows.map(function (r) { return el("tr", {}, cols.map(function (c) { return el("td", { text: scalar(r[c]) }); })); });
    return el("div", { class: "table-wrap" }, [el("table", {}, [el("thead", {}, [head]), el("tbody", {}, body)])]);
  }

  // ------------------------------------------------------------------ the schema-driven form
  // One fieldset per move kind: number inputs within the schema's bounds, a choice among the rows
  // of an enum, and for a split the other half filled in from the pool (`x-complement`).
  function moveForm(o) {
    var kind = o.properties.kind.const;
    var draft = drafts[kind] = drafts[kind] || {};
    var complement = o["x-complement"] || null;
    var form = el("form", { class: "move-form", "data-kind": kind, id: "form-" + kind, novalidate: "novalidate" });
    var fs = el("fieldset", {}, [el("legend", { text: o.description || words(o.title || kind) })]);
    var readers = [];
    Object.keys(o.properties).forEach(function (name) {
      if (name === "kind") return;
      var prop = o.properties[name];
      if (complement && name === complement.is) return;
      if (complement && name === complement.of) { readers.push(splitInputs(fs, kind, name, prop, complement, draft)); return; }
      readers.push(fieldInput(fs, kind, name, prop, draft));
    });
    var button = el("button", { type: "submit", id: "move-" + kind, class: readers.length ? "" : "secondary", text: words(o.title || kind) });
    fs.appendChild(el("div", { class: "row" }, [button]));
    form.appendChild(fs);
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var action = { kind: kind }, problem = null;
      readers.forEach(function (read) { var r = read(action); if (r && !problem) problem = r; });
      if (problem) { showError(problem); return; }
      if (!readers.length && /quit|walk|leave|end/.test(kind) && !confirm(words(o.title || kind) + "?")) return;
      move(action);
    });
    return form;
  }

  function fieldId(kind, name) { return ("field-" + kind + "-" + name).replace(/[^A-Za-z0-9_-]/g, "_"); }

  function fieldInput(fs, kind, name, prop, draft) {
    var id = fieldId(kind, name);
    if (prop.enum) {  // a choice among rows (e.g. a row of the party's own list): radio buttons
      var group = el("div", { class: "choices", role: "radiogroup", "aria-label": words(name), id: id });
      prop.enum.forEach(function (value, i) {
        var rid = id + "-" + i;
        var radio = el("input", { type: "radio", name: id, id: rid, value: String(i) });
        if (draft[name] === i) radio.checked = true;
        radio.addEventListener("change", function () { draft[name] = i; });
        group.appendChild(el("label", { class: "choice", for: rid }, [radio, el("span", { text: scalar(value) })]));
      });
      fs.appendChild(el("p", { class: "meta", text: words(name) + ":" }));
      fs.appendChild(group);
      return function (action) {
        if (draft[name] === undefined) return "Choose one " + words(name).toLowerCase() + " first.";
        action[name] = prop.enum[draft[name]];
      };
    }
    if (prop.type === "integer" || prop.type === "number") {
      var input = numberInput(id, prop, draft[name]);
      input.addEventListener("input", function () { draft[name] = input.value; });
      fs.appendChild(el("div", { class: "row" }, [el("label", { for: id, text: words(name) }), input]));
      return function (action) { var r = readNumber(input, prop, words(name)); if (typeof r === "string") return r; action[name] = r.value; };
    }
    if (prop.type === "boolean") {
      var box = el("input", { type: "checkbox", id: id });
      fs.appendChild(el("div", { class: "row" }, [box, el("label", { for: id, text: words(name) })]));
      return function (action) { action[name] = box.checked; };
    }
    if (prop.type === "object" && prop.properties) {
      var readers = Object.keys(prop.properties).map(function (sub) { return fieldInput(fs, kind, name + "." + sub, prop.properties[sub], {}); });
      return function (action) {
        var inner = {}, problem = null;
        readers.forEach(function (read) { var r = read(inner); if (r && !problem) problem = r; });
        var value = {};
        Object.keys(inner).forEach(function (k) { value[k.slice(name.length + 1)] = inner[k]; });
        action[name] = value;
        return problem;
      };
    }
    var text = el("input", { type: "text", id: id, maxlength: String(prop.maxLength || 1000) });
    if (draft[name]) text.value = draft[name];
    text.addEventListener("input", function () { draft[name] = text.value; });
    fs.appendChild(el("div", { class: "row" }, [el("label", { for: id, text: words(name) }), text]));
    return function (action) { if ((prop.minLength || 0) > text.value.length) return "Fill in " + words(name).toLowerCase() + "."; action[name] = text.value; };
  }

  function numberInput(id, prop, value) {
    var attrs = { type: "number", id: id, inputmode: prop.type === "integer" ? "numeric" : "decimal", step: prop.type === "integer" ? "1" : "any" };
    if (prop.minimum !== undefined) attrs.min = String(prop.minimum);
    if (prop.maximum !== undefined) attrs.max = String(prop.maximum);
    var input = el("input", attrs);
    if (value !== undefined && value !== null) input.value = String(value);
    return input;
  }
  function readNumber(input, prop, label) {
    var raw = input.value.trim();
    var x = Number(raw);
    if (raw === "" || !isFinite(x)) return "Enter a number for " + label.toLowerCase() + ".";
    if (prop.type === "integer" && Math.round(x) !== x) return label + " must be a whole number.";
    if (prop.minimum !== undefined && x < prop.minimum) return label + " must be at least " + prop.minimum + ".";
    if (prop.maximum !== undefined && x > prop.maximum) return label + " must be at most " + prop.maximum + ".";
    if (prop.exclusiveMinimum !== undefined && x <= prop.exclusiveMinimum) return label + " must be above " + prop.exclusiveMinimum + ".";
    if (prop.exclusiveMaximum !== undefined && x >= prop.exclusiveMaximum) return label + " must be below " + prop.exclusiveMaximum + ".";
    return { value: x };
  }

  // A split: one count per item for `of`; the other half (`is`) is the pool minus it, shown live.
  function splitInputs(fs, kind, name, prop, complement, draft) {
    var grid = el("div", { class: "split-grid" }, [el("span", { text: "Item" }), el("span", { text: "You get" }), el("span", { text: "Partner gets" })]);
    var inputs = {};
    var counts = draft[name] = draft[name] || {};
    Object.keys(prop.properties).forEach(function (item) {
      var bounds = prop.properties[item], total = complement.pool[item];
      var id = fieldId(kind, name + "-" + item);
      var select = el("select", { id: id, name: item });
      for (var n = bounds.minimum || 0; n <= bounds.maximum; n++) select.appendChild(el("option", { value: String(n), text: String(n) }));
      if (counts[item] !== undefined) select.value = String(counts[item]);
      var other = el("output", { for: id, id: id + "-other", text: String(total - Number(select.value)) });
      select.addEventListener("change", function () { counts[item] = Number(select.value); other.textContent = String(total - Number(select.value)); });
      inputs[item] = select;
      grid.appendChild(el("label", { for: id, text: words(item) })); grid.appendChild(select); grid.appendChild(other);
    });
    fs.appendChild(grid);
    return function (action) {
      var mine = {}, theirs = {};
      Object.keys(inputs).forEach(function (item) { mine[item] = Number(inputs[item].value); theirs[item] = complement.pool[item] - mine[item]; });
      action[complement.of] = mine; action[complement.is] = theirs;
    };
  }

  // ------------------------------------------------------------------ clock, typing, sending
  function tick() {
    var clock = $("clock");
    if (!deadline || !state || state.done) { clock.textContent = ""; return; }
    var s = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    clock.textContent = "Time left " + Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    clock.classList.toggle("low", s < 60);
  }
  setInterval(tick, 1000);

  $("say-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var input = $("say-input"), text = input.value.trim();
    if (!text) return;
    if (state && text.length > state.max_message_chars) { showError("Please keep messages under " + state.max_message_chars + " characters."); return; }
    move({ kind: "say", text: text });
    input.value = "";
  });
  $("say-input").addEventListener("input", function () {
    var now = Date.now();
    if (now - lastTypingSent > 2000) { lastTypingSent = now; send({ type: "typing" }); }
  });
  connect();
})();
