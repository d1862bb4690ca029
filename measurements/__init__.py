"""Runs that do not fit in a chapter's four minutes, one script each.

    python -m measurements.<name>        # add this machine's runs to book/results/measured/<name>.json

Each script trains or times with the course's own code (attention_course), records every run
with attention_course.measured.record (the processor model, seed, commit and date beside what it
measured) and prints what it recorded. The chapters read the files, print the ranges their prose
quotes, say that those were measured outside the notebook, and check their own runs against them.
Run a script on another processor model and commit the file: the ranges then cover both.
"""
