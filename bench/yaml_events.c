/* yaml_events FILE - the libyaml floor: parse FILE into events and drop them, nothing else.
 * Prints the event count. Build: cc -O2 yaml_events.c -lyaml */
#include <stdio.h>
#include <yaml.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s FILE\n", argv[0]); return 64; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 66; }
    yaml_parser_t parser;
    yaml_event_t event;
    unsigned long events = 0;
    if (!yaml_parser_initialize(&parser)) { fprintf(stderr, "yaml_parser_initialize failed\n"); return 1; }
    yaml_parser_set_input_file(&parser, f);
    for (;;) {
        if (!yaml_parser_parse(&parser, &event)) {
            fprintf(stderr, "%s:%zu:%zu: %s\n", argv[1], parser.problem_mark.line + 1,
                    parser.problem_mark.column + 1, parser.problem ? parser.problem : "parse error");
            return 65;
        }
        int done = event.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&event);
        events++;
        if (done) break;
    }
    yaml_parser_delete(&parser);
    fclose(f);
    printf("%lu events\n", events);
    return 0;
}
