/* SPDX-License-Identifier: MIT */
/* The parsers of the apt probe: sources in one-line and deb822 form,
 * preferences (pins), and the AMD key in binary and armored keyrings. */
#include <glib.h>

#include "apt.h"
#include "keyring.h"
#include "facts-json.h"
#include "util.h"
#include "testlib.h"

static void free_sources(rd_apt_source *s, size_t n)
{
    rd_apt_facts a = { .sources = s, .n_sources = n };
    rd_struct_free(&rd_apt_facts_schema, &a);
}

static void test_sources_one_line(void)
{
    static const char text[] =
        "# deb https://repo.radeon.com/rocm/apt/6.0 jammy main\n" /* 1 */
        "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.4 noble main\n"
        "deb http://archive.ubuntu.com/ubuntu noble main universe\n"                     /* 3 */
        "deb-src https://repo.radeon.com/amdgpu/6.2.4/ubuntu noble main # sources too\n" /* 4 */
        "\n"                                                                             /* 5 */
        "deb https://repo.radeon.com/amdgpu/@AMDGPUVER@/ubuntu noble main\n"             /* 6 */
        "deb http://mirror.example.com/@DISTRO@ stable main\n"                           /* 7 */
        "deb https://repo.radeon.com.evil.example/rocm/apt/6.2 noble main\n"             /* 8 */
        "deb [ signed-by=/usr/share/keyrings/rocm.gpg ] https://repo.radeon.com/rocm/apt/latest ubuntu main";
    rd_apt_source *s = NULL;
    size_t n = 0;
    rd_apt_parse_sources(text, "/etc/apt/sources.list", false, "repo.radeon.com", &s, &n);
    g_assert_cmpuint(n, ==, 5);
    g_assert_cmpint(s[0].line, ==, 2);
    g_assert_cmpstr(s[0].type, ==, "deb");
    g_assert_cmpstr(s[0].uri, ==, "https://repo.radeon.com/rocm/apt/6.2.4");
    g_assert_cmpstr(s[0].suite, ==, "noble");
    g_assert_cmpstr(s[0].components[0], ==, "main");
    g_assert_null(s[0].components[1]);
    g_assert_cmpstr(s[0].signed_by, ==, "/etc/apt/keyrings/rocm.gpg");
    g_assert_true(s[0].enabled);
    g_assert_null(s[0].placeholder);
    g_assert_cmpstr(s[0].format, ==, "one-line");
    g_assert_cmpint(s[1].line, ==, 4);
    g_assert_cmpstr(s[1].type, ==, "deb-src");
    g_assert_null(s[1].signed_by);
    g_assert_null(s[1].components[1]); /* the comment is not a component */
    g_assert_cmpint(s[2].line, ==, 6);
    g_assert_cmpstr(s[2].placeholder, ==, "@AMDGPUVER@");
    g_assert_cmpint(s[3].line, ==, 7);
    g_assert_cmpstr(s[3].placeholder, ==, "@DISTRO@");
    g_assert_cmpint(s[4].line, ==, 9);
    g_assert_cmpstr(s[4].signed_by, ==, "/usr/share/keyrings/rocm.gpg");
    g_assert_cmpstr(s[4].suite, ==, "ubuntu");
    free_sources(s, n);
}

static void test_sources_deb822(void)
{
    static const char text[] = "# ROCm\n"                                                  /* 1 */
                               "Types: deb\n"                                              /* 2 */
                               "URIs: https://repo.radeon.com/rocm/apt/6.3.3\n"            /* 3 */
                               "Suites: jammy noble\n"                                     /* 4 */
                               "Components: main\n"                                        /* 5 */
                               "Signed-By: /etc/apt/keyrings/rocm.gpg\n"                   /* 6 */
                               "\n"                                                        /* 7 */
                               "Types: deb deb-src\n"                                      /* 8 */
                               "URIs: https://repo.radeon.com/amdgpu/6.3.3/ubuntu\n"       /* 9 */
                               "Suites: noble\n"                                           /* 10 */
                               "Components: main\n"                                        /* 11 */
                               "Enabled: no\n"                                             /* 12 */
                               "Signed-By:\n"                                              /* 13 */
                               " -----BEGIN PGP PUBLIC KEY BLOCK-----\n"                   /* 14 */
                               " .\n"                                                      /* 15 */
                               " mQINBFxxxx\n"                                             /* 16 */
                               " -----END PGP PUBLIC KEY BLOCK-----\n"                     /* 17 */
                               "\n"                                                        /* 18 */
                               "Types: deb\n"                                              /* 19 */
                               "URIs: http://archive.ubuntu.com/ubuntu/\n"                 /* 20 */
                               "Suites: noble\n"                                           /* 21 */
                               "Components: main\n"                                        /* 22 */
                               "\n"                                                        /* 23 */
                               "Types: deb\n"                                              /* 24 */
                               "URIs: https://repo.radeon.com/graphics/@ROCMVER@/ubuntu\n" /* 25 */
                               "Suites: noble\n";                                          /* 26 */
    rd_apt_source *s = NULL;
    size_t n = 0;
    rd_apt_parse_sources(text, "/etc/apt/sources.list.d/rocm.sources", true, "repo.radeon.com", &s, &n);
    g_assert_cmpuint(n, ==, 4);
    g_assert_cmpstr(s[0].suite, ==, "jammy");
    g_assert_cmpstr(s[1].suite, ==, "noble");
    g_assert_cmpint(s[0].line, ==, 3);
    g_assert_cmpstr(s[0].format, ==, "deb822");
    g_assert_cmpstr(s[0].signed_by, ==, "/etc/apt/keyrings/rocm.gpg");
    g_assert_true(s[0].enabled);
    g_assert_cmpstr(s[2].uri, ==, "https://repo.radeon.com/amdgpu/6.3.3/ubuntu");
    g_assert_cmpstr(s[2].type, ==, "deb");
    g_assert_false(s[2].enabled);
    g_assert_cmpstr(s[2].signed_by, ==, "(inline key)");
    g_assert_cmpint(s[3].line, ==, 25);
    g_assert_cmpstr(s[3].placeholder, ==, "@ROCMVER@");
    g_assert_null(s[3].signed_by);
    free_sources(s, n);
}

static void test_preferences(void)
{
    static const char text[] = "Package: *\n"                     /* 1 */
                               "Pin: release o=repo.radeon.com\n" /* 2 */
                               "Pin-Priority: 600\n"              /* 3 */
                               "\n"                               /* 4 */
                               "# snap\n"                         /* 5 */
                               "Package: snapd\n"                 /* 6 */
                               "Pin: release a=*\n"               /* 7 */
                               "Pin-Priority: -10\n"              /* 8 */
                               "\n"                               /* 9 */
                               "Package: rocm*\n"                 /* 10 */
                               "Pin: origin repo.radeon.com\n"    /* 11 */
                               "Pin-Priority: 400";               /* 12 */
    rd_apt_pin *p = NULL;
    size_t n = 0;
    rd_apt_parse_preferences(text, "/etc/apt/preferences.d/rocm-pin-600", "repo.radeon.com", &p, &n);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpint(p[0].line, ==, 1);
    g_assert_cmpstr(p[0].package, ==, "*");
    g_assert_cmpint(p[0].priority, ==, 600);
    g_assert_cmpint(p[1].line, ==, 10);
    g_assert_cmpstr(p[1].pin, ==, "origin repo.radeon.com");
    g_assert_cmpint(p[1].priority, ==, 400);
    rd_apt_facts a = { .pins = p, .n_pins = n };
    rd_struct_free(&rd_apt_facts_schema, &a);
}

static void test_keyring(void)
{
    /* a v4 Ed25519 public key packet (old format, tag 6) made with gpg;
     * gpg gives its fingerprint as 334C6F58287870808B614ADB6BE1E6C28EF30EBE */
    static const unsigned char key[] = {
        0x98, 0x33, 0x04, 0x65, 0x92, 0x00, 0x80, 0x16, 0x09, 0x2b, 0x06, 0x01, 0x04, 0x01, 0xda, 0x47, 0x0f, 0x01,
        0x01, 0x07, 0x40, 0x17, 0xd8, 0x48, 0xeb, 0xe4, 0x50, 0x38, 0x23, 0xdf, 0x8f, 0x09, 0x72, 0xb8, 0x9d, 0x2c,
        0x96, 0x14, 0xc4, 0x6f, 0xbd, 0xfe, 0xd8, 0x6b, 0x8c, 0xc0, 0x35, 0xf9, 0x65, 0xae, 0xd8, 0x5b, 0xfc,
    };
    /* a signature packet whose issuer subpacket (type 16) names AMD's key id */
    static const unsigned char sig[] = {
        0xc2, 0x1c, 0x04, 0x13, 0x01, 0x08, 0x00, 0x06, 0x05, 0x02, 0x5d, 0x24, 0x8c, 0x40,
        0x00, 0x0a, 0x09, 0x10, 0x93, 0x86, 0xb4, 0x8a, 0x1a, 0x69, 0x3c, 0x5c, 0x5a, 0x3c,
    };
    const char *fpr = "334C6F58287870808B614ADB6BE1E6C28EF30EBE";
    unsigned char ring[sizeof key + sizeof sig];
    memcpy(ring, key, sizeof key);
    memcpy(ring + sizeof key, sig, sizeof sig);

    _cleanup_strv_free_ char **fprs = rd_keyring_fingerprints(ring, sizeof ring);
    g_assert_nonnull(fprs);
    g_assert_cmpstr(fprs[0], ==, fpr);
    g_assert_null(fprs[1]);
    g_assert_true(rd_keyring_has_key(ring, sizeof ring, fpr));
    g_assert_true(rd_keyring_has_key(ring, sizeof ring, "334c 6f58 2878 7080 8b61  4adb 6be1 e6c2 8ef3 0ebe"));
    g_assert_true(rd_keyring_has_key(ring, sizeof ring, "6BE1E6C28EF30EBE"));
    g_assert_false(rd_keyring_has_key(ring, sizeof ring, "334C6F58287870808B614ADB6BE1E6C28EF30EBF"));
    g_assert_false(rd_keyring_has_key(ring, sizeof ring, "6BE1E6C2"));
    /* the key id of a signature's issuer is no key: a foreign key carrying
     * a copy of AMD's signature is not AMD's */
    g_assert_false(rd_keyring_has_key(ring, sizeof ring, "9386B48A1A693C5C"));
    g_assert_false(rd_keyring_has_key(sig, sizeof sig, "9386B48A1A693C5C"));
    g_assert_null(rd_keyring_fingerprints(sig, sizeof sig));
    /* cut short: no key */
    g_assert_false(rd_keyring_has_key(ring, 10, fpr));

    /* the same packet in the new format (0xc6), and as a subkey (tag 14): not a primary key */
    unsigned char alt[sizeof key];
    memcpy(alt, key, sizeof key);
    alt[0] = 0xc6;
    g_assert_true(rd_keyring_has_key(alt, sizeof alt, fpr));
    alt[0] = 0xb8;
    g_assert_false(rd_keyring_has_key(alt, sizeof alt, fpr));

    g_autofree char *b64 = g_base64_encode(ring, sizeof ring);
    g_autofree char *armored = g_strdup_printf("-----BEGIN PGP PUBLIC KEY BLOCK-----\n"
                                               "Comment: test\n"
                                               "\n"
                                               "%.20s\n%s\n=AbCd\n"
                                               "-----END PGP PUBLIC KEY BLOCK-----\n",
                                               b64, b64 + 20);
    g_assert_true(rd_keyring_has_key((const unsigned char *)armored, strlen(armored), fpr));
    g_assert_false(rd_keyring_has_key((const unsigned char *)armored, strlen(armored), "9386B48A1A693C5C"));
    /* the armored text itself does not hold the raw bytes */
    g_assert_null(memmem(armored, strlen(armored), key + 3, 8));
}

static const rd_test_case tests[] = {
    { "/apt/parse/sources-one-line", test_sources_one_line },
    { "/apt/parse/sources-deb822", test_sources_deb822 },
    { "/apt/parse/preferences", test_preferences },
    { "/apt/parse/keyring", test_keyring },
};

RD_TEST_MAIN(tests, false)
