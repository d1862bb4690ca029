/*
 * Framework switch (Keras | PyTorch) for the course book. No dependencies.
 *
 * myst-nb turns a code cell's tags into classes on the cell container:
 * a cell tagged `keras` is <div class="cell tag_keras ...">, one tagged
 * `pytorch` is <div class="cell tag_pytorch ...">. Any other element with the
 * class `tag_keras` / `tag_pytorch` (e.g. a MyST `{div}` in prose) is treated
 * the same way. Untagged content is never hidden.
 *
 * State: <html data-framework="keras|pytorch">, set as soon as this script
 * runs (in <head>); framework-switch.css hides the other framework's elements.
 * Choice, by priority: ?framework=keras|pytorch in the URL (then remembered),
 * localStorage["attention-course.framework"], default "pytorch".
 * The control (two buttons with aria-pressed in a role="group") is added to
 * the page header only on pages that contain at least one tagged element.
 *
 * API: window.frameworkSwitch.get() -> "keras" | "pytorch"
 *      window.frameworkSwitch.set(name)  selects, remembers, updates the page
 *      document event "frameworkchange" with event.detail.framework
 */
(function () {
  "use strict";

  var FRAMEWORKS = ["keras", "pytorch"];
  var LABELS = { keras: "Keras", pytorch: "PyTorch" };
  var DEFAULT = "pytorch";
  var STORAGE_KEY = "attention-course.framework";
  var PARAM = "framework";
  var root = document.documentElement;

  function isValid(name) {
    return FRAMEWORKS.indexOf(name) !== -1;
  }

  function normalise(name) {
    return typeof name === "string" ? name.trim().toLowerCase() : null;
  }

  function readStorage() {
    try {
      return normalise(window.localStorage.getItem(STORAGE_KEY));
    } catch (e) {
      return null; // storage disabled (privacy mode, file:// in some browsers)
    }
  }

  function writeStorage(name) {
    try {
      window.localStorage.setItem(STORAGE_KEY, name);
    } catch (e) {
      /* not remembered, but the page still switches */
    }
  }

  function readUrl() {
    try {
      return normalise(new URLSearchParams(window.location.search).get(PARAM));
    } catch (e) {
      return null;
    }
  }

  function current() {
    var name = root.getAttribute("data-framework");
    return isValid(name) ? name : DEFAULT;
  }

  function updateButtons(name) {
    var buttons = document.querySelectorAll(".framework-switch__button");
    for (var i = 0; i < buttons.length; i++) {
      var pressed = buttons[i].getAttribute("data-framework") === name;
      buttons[i].setAttribute("aria-pressed", pressed ? "true" : "false");
    }
  }

  function apply(name) {
    var changed = root.getAttribute("data-framework") !== name;
    root.setAttribute("data-framework", name);
    updateButtons(name);
    if (changed) {
      var event;
      try {
        event = new CustomEvent("frameworkchange", { detail: { framework: name } });
      } catch (e) {
        event = document.createEvent("CustomEvent");
        event.initCustomEvent("frameworkchange", false, false, { framework: name });
      }
      document.dispatchEvent(event);
    }
  }

  // Keep an explicit ?framework= in the address in step with the choice,
  // so that a reload does not undo a click.
  function syncUrl(name) {
    try {
      var url = new URL(window.location.href);
      if (url.searchParams.has(PARAM) && url.searchParams.get(PARAM) !== name) {
        url.searchParams.set(PARAM, name);
        window.history.replaceState(window.history.state, "", url.toString());
      }
    } catch (e) {
      /* old browser: ignore */
    }
  }

  function set(name) {
    name = normalise(name);
    if (!isValid(name)) {
      return false;
    }
    writeStorage(name);
    syncUrl(name);
    apply(name);
    return true;
  }

  function buildSwitch() {
    if (document.querySelector(".framework-switch")) {
      return;
    }
    if (!document.querySelector(".tag_keras, .tag_pytorch")) {
      return; // nothing framework-specific on this page: no switch
    }
    var group = document.createElement("div");
    group.className = "framework-switch";
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", "Framework of the code cells");

    var label = document.createElement("span");
    label.className = "framework-switch__label";
    label.setAttribute("aria-hidden", "true");
    label.textContent = "Code:";
    group.appendChild(label);

    FRAMEWORKS.forEach(function (name) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "framework-switch__button";
      button.setAttribute("data-framework", name);
      button.setAttribute("aria-pressed", "false");
      button.title = "Show the " + LABELS[name] + " code";
      button.textContent = LABELS[name];
      // A native <button> is reachable with Tab and fires "click" on Enter and Space.
      button.addEventListener("click", function () {
        set(name);
      });
      group.appendChild(button);
    });

    // Preferred place: the sticky header of sphinx-book-theme, so the switch
    // stays at hand while scrolling. Fallback: the top of the article.
    var headerEnd = document.querySelector(".bd-header-article .header-article-items__end");
    if (headerEnd) {
      var item = document.createElement("div");
      item.className = "header-article-item framework-switch-item";
      item.appendChild(group);
      headerEnd.classList.add("framework-switch-host");
      headerEnd.insertBefore(item, headerEnd.firstChild);
    } else {
      var article = document.querySelector("article") || document.querySelector("main") || document.body;
      article.insertBefore(group, article.firstChild);
    }
    updateButtons(current());
  }

  // 1. Choose before the page is painted (this script is loaded in <head>).
  var initial = readUrl();
  if (isValid(initial)) {
    writeStorage(initial);
  } else {
    initial = readStorage();
  }
  apply(isValid(initial) ? initial : DEFAULT);

  // 2. Another tab changed the choice: follow it.
  window.addEventListener("storage", function (event) {
    if (event.key === STORAGE_KEY && isValid(normalise(event.newValue))) {
      apply(normalise(event.newValue));
    }
  });

  // 3. Add the control once the page exists. The download menu's one-framework notebooks
  //    (attention_course/book_downloads.py) are files to save, not pages to open.
  function markDownloads() {
    var links = document.querySelectorAll(
      "a.btn-download-keras-notebook-button, a.btn-download-pytorch-notebook-button");
    for (var i = 0; i < links.length; i++) {
      links[i].setAttribute("download", "");
      links[i].removeAttribute("target");
    }
  }
  function onReady() {
    buildSwitch();
    markDownloads();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", onReady);
  } else {
    onReady();
  }

  window.frameworkSwitch = {
    get: current,
    set: set,
    frameworks: FRAMEWORKS.slice(),
    storageKey: STORAGE_KEY,
    defaultFramework: DEFAULT
  };
})();
