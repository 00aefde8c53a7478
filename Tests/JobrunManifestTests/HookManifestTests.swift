import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunManifest

/// `hooks:` in `defaults` and resources: argument vectors, each key overriding the defaults'
/// one, and a located error for every value that is not one.
@Suite struct HookManifestTests {
    @Test func defaultsGiveHooksAndAResourceOverridesEachKey() throws {
        let loaded = try loadManifests([
            "m.yaml": """
            version: 1
            defaults:
              hooks:
                on_complete: [notify-send, "mirror done"]
                on_failure: ["./bin/alert", --loud]
                timeout: 5m
            resources:
              - id: a
                base_url: https://cdn.example.com/
                slices: [{path: x}]
              - id: b
                base_url: https://cdn.example.com/
                hooks: {on_complete: ~, on_hook_failure: fail, timeout: 1500ms}
                slices: [{path: y}]
              - id: c
                base_url: https://cdn.example.com/
                hooks: {on_failure: [sh, -c, 'echo "$JOBRUN_RESOURCE" >> ${HOME}/failed', "", '3']}
                slices: [{path: z}]
            """
        ])
        #expect(loaded.rendered == "")
        let m = try #require(loaded.manifest)
        let (a, b, c) = (m.resources[0].settings.hooks, m.resources[1].settings.hooks, m.resources[2].settings.hooks)
        let folder = SlashPath.folder(of: m.resources[0].manifestFile)
        #expect(a.commands[.onComplete] == ["notify-send", "mirror done"])
        // A path with a slash is the manifest folder's; a bare name is looked up on PATH later.
        #expect(a.commands[.onFailure] == ["\(folder)/bin/alert", "--loud"])
        #expect(a.failurePolicy == .warn && a.timeout == .seconds(300))
        #expect(b.commands[.onComplete] == nil && b.commands[.onFailure] == a.commands[.onFailure])
        #expect(b.failurePolicy == .fail && b.timeout == .milliseconds(1_500))
        // No interpolation: `${HOME}` stays as written, for the shell the hook names.
        #expect(c.commands[.onFailure] == ["sh", "-c", "echo \"$JOBRUN_RESOURCE\" >> ${HOME}/failed", "", "3"])
        #expect(c.commands[.onComplete] == a.commands[.onComplete] && c.timeout == .seconds(300))
        #expect(HookSettings().commands.isEmpty && HookSettings().timeout == .seconds(60) && HookSettings().failurePolicy == .warn)
    }

    @Test func everyBadValueIsReportedWhereItIs() throws {
        let text = try diagnose(
            """
            version: 1
            defaults:
              hooks: [notify]
            resources:
              - id: a
                base_url: https://cdn.example.com/
                hooks:
                  on_complete: notify-send done
                  on_failure: []
                  on_deferal: [x]
                  on_hook_failure: ignore
                  timeout: 10
                slices: [{path: x}]
              - id: b
                base_url: https://cdn.example.com/
                hooks:
                  on_complete: ["", {a: 1}, ~, [x]]
                  on_failure: ["a\\0b", "ok", "c\\0"]
                  on_hook_failure: fial
                  timeout: 2d
                slices: [{path: y}]
            """)
        #expect(
            text == """
                m.yaml:3:10: error: 'hooks' must be a mapping, found a list
                  hooks: [notify]
                         ^
                m.yaml:8:20: error: 'on_complete' must be a list: the program and its arguments, like ["notify-send", "mirror updated"] (no shell runs it; write ["sh", "-c", "…"] for one)
                      on_complete: notify-send done
                                   ^
                m.yaml:9:19: error: 'on_failure' is empty: give the program and its arguments, or null for no hook
                      on_failure: []
                                  ^
                m.yaml:10:7: error: unknown key 'on_deferal' in 'hooks' (did you mean 'on_deferred'?)
                      on_deferal: [x]
                      ^
                m.yaml:11:24: error: 'on_hook_failure' must be warn or fail, found 'ignore'
                      on_hook_failure: ignore
                                       ^
                m.yaml:12:16: error: 'timeout' is not a valid duration: '10': a unit is missing (write e.g. '10s')
                      timeout: 10
                               ^
                m.yaml:17:21: error: the program of 'on_complete' is empty
                      on_complete: ["", {a: 1}, ~, [x]]
                                    ^
                m.yaml:17:25: error: argument 1 of 'on_complete' must be a string, found a mapping
                      on_complete: ["", {a: 1}, ~, [x]]
                                        ^
                m.yaml:17:33: error: argument 2 of 'on_complete' must be a string, found nothing (null)
                      on_complete: ["", {a: 1}, ~, [x]]
                                                ^
                m.yaml:17:36: error: argument 3 of 'on_complete' must be a string, found a list
                      on_complete: ["", {a: 1}, ~, [x]]
                                                   ^
                m.yaml:18:20: error: the program of 'on_failure' contains a NUL character
                      on_failure: ["a\\0b", "ok", "c\\0"]
                                   ^
                m.yaml:18:34: error: argument 2 of 'on_failure' contains a NUL character
                      on_failure: ["a\\0b", "ok", "c\\0"]
                                                 ^
                m.yaml:19:24: error: 'on_hook_failure' must be warn or fail, found 'fial' (did you mean 'fail'?)
                      on_hook_failure: fial
                                       ^
                m.yaml:20:16: error: 'timeout' is out of range: 2d (allowed: 1ms…1d)
                      timeout: 2d
                               ^

                """)
    }
}
