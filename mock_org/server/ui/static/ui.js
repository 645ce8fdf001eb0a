// The few things the pages do with script; every page works without it.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // Rows per page: choosing a size reloads the list.
  for (const select of document.querySelectorAll("select[data-autosubmit]")) {
    select.addEventListener("change", () => select.form.requestSubmit());
  }
  // Query console: Ctrl+Enter (Cmd+Enter) runs the query.
  for (const area of document.querySelectorAll("textarea[data-submit-on-ctrl-enter]")) {
    area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        area.form.requestSubmit();
      }
    });
  }
});
