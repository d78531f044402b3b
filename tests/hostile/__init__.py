"""Hostile submissions through the whole path: HTTP -> grader pool -> zygote -> locked-down
child -> verdict. See SECURITY.md, "The hostile-submission suite"."""
