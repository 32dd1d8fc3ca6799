package main

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"
)

// politeErrors makes command-line mistakes cost one line each: a wrong flag or a
// misspelt command is returned as an error (printed once by main, not before and after
// the whole help), with the nearest flag or command suggested and the help command named.
// urfave/cli's own handling prints the help text between two copies of the error, and
// answers a misspelt command with "No help topic" and exit code 3.
func politeErrors(app *cli.App) {
	app.ExitErrHandler = func(*cli.Context, error) {} // main prints and exits
	app.OnUsageError = usageError(app.Name, app.Flags)
	app.Action = unknownCommand(app.Name, app.Commands)
	// The commands are package variables, shared by every App: adjust them once.
	politeOnce.Do(func() {
		required := map[*cli.Command][]string{}
		walkCommands(app.Name, app.Commands, func(_ string, c *cli.Command) { required[c] = requiredFlags(c.Flags) })
		walkCommands(app.Name, app.Commands, func(path string, c *cli.Command) { politeCommand(path, c, required[c]) })
	})
}

var politeOnce sync.Once

func walkCommands(parent string, cmds []*cli.Command, f func(path string, c *cli.Command)) {
	for _, c := range cmds {
		path := parent + " " + c.Name
		f(path, c)
		walkCommands(path, c.Subcommands, f)
	}
}

func politeCommand(path string, c *cli.Command, required []string) {
	c.OnUsageError = usageError(path, c.Flags)
	if len(c.Subcommands) > 0 && c.Action == nil {
		c.Action = unknownCommand(path, c.Subcommands)
	}
	if len(required) > 0 {
		// urfave/cli prints the whole help before a missing required flag's error;
		// checking them here gives the error alone.
		clearRequired(c.Flags)
		before := c.Before
		c.Before = func(ctx *cli.Context) error {
			var missing []string
			for _, name := range required {
				if !ctx.IsSet(name) {
					missing = append(missing, "--"+name)
				}
			}
			if len(missing) > 0 {
				return fmt.Errorf("missing %s; see '%s --help'", strings.Join(missing, ", "), path)
			}
			if before != nil {
				return before(ctx)
			}
			return nil
		}
	}
}

// requiredFlags names the flags marked Required (string and string list flags: the only
// kinds this binary requires).
func requiredFlags(flags []cli.Flag) []string {
	var out []string
	for _, f := range flags {
		if r, ok := f.(cli.RequiredFlag); ok && r.IsRequired() {
			out = append(out, f.Names()[0])
		}
	}
	return out
}

func clearRequired(flags []cli.Flag) {
	for _, f := range flags {
		switch f := f.(type) {
		case *cli.StringFlag:
			f.Required = false
		case *cli.StringSliceFlag:
			f.Required = false
		}
	}
}

// usageError turns a flag parsing error into one line that names the nearest flag and
// the help to read.
func usageError(path string, flags []cli.Flag) cli.OnUsageErrorFunc {
	return func(_ *cli.Context, err error, _ bool) error {
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
			if s := nearestFlag(flags, strings.TrimLeft(name, "-")); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			}
		}
		return fmt.Errorf("%s; see '%s --help'", msg, path)
	}
}

// nearestFlag is urfave/cli's suggestion ("" when it has none).
func nearestFlag(flags []cli.Flag, name string) string {
	if cli.SuggestFlag == nil || len(flags) == 0 {
		return ""
	}
	return cli.SuggestFlag(flags, name, true)
}

// unknownCommand is the action of a command that only has subcommands: without
// arguments it shows the help, with an unknown one it names the nearest command.
func unknownCommand(path string, cmds []*cli.Command) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() == 0 {
			return cli.ShowSubcommandHelp(c)
		}
		name := c.Args().First()
		msg := fmt.Sprintf("unknown command %q", name)
		if s := nearestCommand(cmds, name); s != "" {
			msg += fmt.Sprintf("; did you mean '%s %s'?", path, s)
		}
		return errors.New(msg + fmt.Sprintf(" ('%s --help' lists the commands)", path))
	}
}

// nearestCommand is the command whose name is closest to name ("" for none close).
func nearestCommand(cmds []*cli.Command, name string) string {
	best, bestScore := "", 0.0
	for _, c := range cmds {
		if c.Hidden {
			continue
		}
		for _, n := range c.Names() {
			if s := similarity(n, name); s > bestScore {
				best, bestScore = c.Name, s
			}
		}
	}
	if bestScore < 0.5 {
		return ""
	}
	return best
}

// similarity is 1 - edit distance / longer length: 1 for equal names, 0 for nothing in
// common.
func similarity(a, b string) float64 {
	n := max(len(a), len(b))
	if n == 0 {
		return 1
	}
	return 1 - float64(editDistance(a, b))/float64(n)
}

// editDistance is the Levenshtein distance with transpositions counted once.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
