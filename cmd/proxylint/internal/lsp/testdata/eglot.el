;;; eglot.el --- Emacs's own LSP client, Eglot, against proxylint lsp -*- lexical-binding: t -*-
;; Run by TestEmacsEglot, in batch: opens nginx.conf of the workspace $WS,
;; waits for the diagnostics, hovers on proxy_read_timeout, applies the
;; keepalive fix through Eglot's own code action, saves, then opens the
;; fragment and goes to the upstream's definition. Each result is a line
;; of $RESULT, "KEY<TAB>VALUE", read by the test.

(dolist (d (directory-files "/usr/share/emacs/site-lisp/elpa" t "^[a-z]"))
  (add-to-list 'load-path d))
(require 'eglot)
(require 'flymake)

(defvar result-lines nil)
(defun put-result (key value)
  (push (format "%s\t%s" key (replace-regexp-in-string "\n" "\\\\n" (format "%s" value))) result-lines))
(defun finish ()
  (with-temp-file (getenv "RESULT")
    (insert (mapconcat #'identity (reverse result-lines) "\n") "\n"))
  (kill-emacs 0))
(defun wait-for (pred seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (< (float-time) deadline) (not (funcall pred)))
      (accept-process-output nil 0.1))
    (funcall pred)))
(defun diagnostics ()
  (sort (mapcar (lambda (d)
                  (let ((text (flymake-diagnostic-text d)))
                    (format "%d %s" (line-number-at-pos (flymake-diagnostic-beg d))
                            (if (string-match "\\[\\([a-z0-9-]+\\)\\]" text) (match-string 1 text) text))))
                (flymake-diagnostics))
        #'string<))
(defun goto-line-col (line col)
  (goto-char (point-min)) (forward-line (1- line)) (forward-char col))

(setq eglot-server-programs `((fundamental-mode . (,(getenv "PROXYLINT") "lsp"))))
(setq auto-mode-alist '(("\\.conf\\'" . fundamental-mode)))
(setq make-backup-files nil)

(condition-case err
    (progn
      (find-file (expand-file-name "nginx.conf" (getenv "WS")))
      (apply #'eglot (eglot--guess-contact))
      (unless (wait-for #'eglot-current-server 30) (error "no server"))
      (put-result "connected" (eglot--project-nickname (eglot-current-server)))
      (unless (wait-for #'flymake-diagnostics 30) (error "no diagnostics"))
      (put-result "diagnostics" (string-join (diagnostics) ", "))
      (goto-line-col 3 6)
      (let ((hover (jsonrpc-request (eglot-current-server) :textDocument/hover
                                    (eglot--TextDocumentPositionParams))))
        (put-result "hover" (plist-get (plist-get hover :contents) :value)))
      (goto-line-col 4 4)
      (let* ((actions (jsonrpc-request
                       (eglot-current-server) :textDocument/codeAction
                       (list :textDocument (eglot--TextDocumentIdentifier)
                             :range (list :start (eglot--pos-to-lsp-position (line-beginning-position))
                                          :end (eglot--pos-to-lsp-position (line-end-position)))
                             :context (list :diagnostics
                                            (vconcat (delq nil (mapcar #'eglot--diag-data (flymake-diagnostics))))))))
             (fix (seq-find (lambda (a) (string-prefix-p "Add \"keepalive" (plist-get a :title))) actions)))
        (put-result "actions" (string-join (mapcar (lambda (a) (plist-get a :title)) actions) " | "))
        (unless fix (error "no fix offered"))
        ;; Eglot asks before it edits a file no buffer visits; the
        ;; fragment is visited, as a user with both files open has it.
        (find-file-noselect (expand-file-name "conf.d/app.conf" (getenv "WS")))
        (eglot--apply-workspace-edit (plist-get fix :edit))
        (save-some-buffers t)
        (wait-for (lambda () (not (member "4 upstream-no-keepalive" (diagnostics)))) 30)
        (put-result "fixed" (string-join (diagnostics) ", ")))
      (switch-to-buffer (find-buffer-visiting (expand-file-name "conf.d/app.conf" (getenv "WS"))))
      (goto-line-col 4 27)
      (let ((defs (jsonrpc-request (eglot-current-server) :textDocument/definition
                                   (eglot--TextDocumentPositionParams))))
        (put-result "definition"
                (mapconcat (lambda (l) (format "%s:%d" (file-name-nondirectory (eglot--uri-to-path (plist-get l :uri)))
                                               (plist-get (plist-get (plist-get l :range) :start) :line)))
                           (if (vectorp defs) (append defs nil) (list defs)) " ")))
      (put-result "ok" "t"))
  (error (put-result "error" (error-message-string err))))
(finish)
