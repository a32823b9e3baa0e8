/* SPDX-License-Identifier: MIT */
/* The PCI probe's parsers: config-space capability lists, sysfs link speeds
 * and libdrm's amdgpu.ids. */
#include <glib.h>

#include "pci.h"
#include "util.h"
#include "testlib.h"
#include "assess-lib.h"

#define CAP_PM 0x01
#define CAP_MSI 0x05
#define CAP_EXP 0x10
#define EXT_AER 0x0001
#define EXT_VSEC 0x000b
#define EXT_REBAR 0x0015

static void put16(uint8_t *c, size_t off, uint16_t v)
{
    c[off] = (uint8_t)v;
    c[off + 1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *c, size_t off, uint32_t v)
{
    put16(c, off, (uint16_t)v);
    put16(c, off + 2, (uint16_t)(v >> 16));
}

/* A header with the capability-list bit set and the first pointer at `first`. */
static void header(uint8_t *c, uint16_t vendor, uint16_t device, uint8_t first)
{
    put16(c, 0x00, vendor);
    put16(c, 0x02, device);
    put16(c, 0x06, 0x0010);
    c[0x34] = first;
}

static void cap(uint8_t *c, size_t at, uint8_t id, uint8_t next)
{
    c[at] = id;
    c[at + 1] = next;
}

/* PCIe capability: flags = version | type << 4 */
static void exp_cap(uint8_t *c, size_t at, uint8_t next, int version, int type, uint32_t lnkcap, uint16_t lnksta,
                    uint32_t devcap2, uint16_t devctl2)
{
    cap(c, at, CAP_EXP, next);
    put16(c, at + 0x02, (uint16_t)(version | type << 4));
    put32(c, at + 0x0c, lnkcap);
    put16(c, at + 0x12, lnksta);
    put32(c, at + 0x24, devcap2);
    put16(c, at + 0x28, devctl2);
}

static void ext_cap(uint8_t *c, size_t at, uint16_t id, uint16_t next)
{
    put32(c, at, (uint32_t)id | 1u << 16 | (uint32_t)next << 20);
}

static void test_endpoint(void)
{
    static uint8_t c[4096];
    memset(c, 0, sizeof c);
    header(c, 0x1002, 0x744c, 0x50);
    cap(c, 0x50, CAP_PM, 0x64);
    cap(c, 0x64, CAP_MSI, 0xa0);
    /* Gen4 x16 capable, running Gen4 x16; 32/64-bit completer; requester on */
    exp_cap(c, 0xa0, 0x00, 2, 0, 0x00400104, 0x1104, RD_DEVCAP2_ATOMIC_COMP32 | RD_DEVCAP2_ATOMIC_COMP64 | 0x10000,
            RD_DEVCTL2_ATOMIC_REQ | 0x0400);
    ext_cap(c, 0x100, EXT_AER, 0x150);
    ext_cap(c, 0x150, EXT_REBAR, 0x200);
    ext_cap(c, 0x200, EXT_VSEC, 0x000);

    rd_pcie_caps caps;
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_true(caps.has_exp);
    g_assert_cmpint(caps.type, ==, 0);
    g_assert_cmpint(caps.version, ==, 2);
    g_assert_cmphex(caps.lnkcap, ==, 0x00400104);
    g_assert_cmphex(caps.lnksta, ==, 0x1104);
    g_assert_cmphex(caps.devcap2, ==, 0x10180);
    g_assert_cmphex(caps.devctl2, ==, 0x0440);
    g_assert_true(caps.resizable_bar);
    g_assert_false(caps.devcap2 & RD_DEVCAP2_ATOMIC_ROUTE);
    g_assert_true(caps.devctl2 & RD_DEVCTL2_ATOMIC_REQ);

    /* the same device seen through 256 bytes: no extended capabilities */
    g_assert_cmpint(rd_pci_parse_caps(c, 256, &caps), ==, 0);
    g_assert_true(caps.has_exp);
    g_assert_cmphex(caps.devcap2, ==, 0x10180);
    g_assert_false(caps.resizable_bar);
}

static void test_root_port(void)
{
    uint8_t c[256] = { 0 };
    header(c, 0x1022, 0x1483, 0x58);
    cap(c, 0x58, CAP_PM, 0x40); /* pointers may go backwards */
    exp_cap(c, 0x40, 0x00, 2, 4, 0x7304, 0x7104,
            RD_DEVCAP2_ATOMIC_ROUTE | RD_DEVCAP2_ATOMIC_COMP32 | RD_DEVCAP2_ATOMIC_COMP64 | RD_DEVCAP2_ATOMIC_COMP128,
            0);
    rd_pcie_caps caps;
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_true(caps.has_exp);
    g_assert_cmpint(caps.type, ==, 4);
    g_assert_cmphex(caps.devcap2, ==, 0x3c0);
    g_assert_cmphex(caps.devctl2, ==, 0);
}

static void test_switch_upstream(void)
{
    uint8_t c[256] = { 0 };
    header(c, 0x1002, 0x1478, 0x48);
    exp_cap(c, 0x48, 0x00, 2, 5, 0x4104, 0x1104, RD_DEVCAP2_ATOMIC_ROUTE, RD_DEVCTL2_ATOMIC_EGRESS_BLOCK);
    rd_pcie_caps caps;
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_cmpint(caps.type, ==, 5);
    g_assert_cmphex(caps.devcap2, ==, RD_DEVCAP2_ATOMIC_ROUTE);
    g_assert_cmphex(caps.devctl2, ==, RD_DEVCTL2_ATOMIC_EGRESS_BLOCK);

    /* a switch downstream port without routing */
    exp_cap(c, 0x48, 0x00, 2, 6, 0x4104, 0x1104, 0, 0);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_cmpint(caps.type, ==, 6);
    g_assert_cmphex(caps.devcap2, ==, 0);
}

static void test_version1(void)
{
    /* version 1 capabilities end before DevCap2: whatever follows is not ours */
    uint8_t c[256] = { 0 };
    header(c, 0x1002, 0x67df, 0x60);
    exp_cap(c, 0x60, 0x00, 1, 0, 0x104, 0x1041, 0xffffffff, 0xffff);
    rd_pcie_caps caps;
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_true(caps.has_exp);
    g_assert_cmpint(caps.version, ==, 1);
    g_assert_cmphex(caps.devcap2, ==, 0);
    g_assert_cmphex(caps.devctl2, ==, 0);
}

static void test_no_cap_list(void)
{
    uint8_t c[256] = { 0 };
    header(c, 0x1002, 0x67df, 0x60);
    exp_cap(c, 0x60, 0x00, 2, 0, 0x104, 0x1041, 0x180, 0x40);
    put16(c, 0x06, 0x0000); /* status says there is no list: the pointer is not read */
    rd_pcie_caps caps;
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_false(caps.has_exp);
    g_assert_cmphex(caps.devcap2, ==, 0);

    /* pointers into the header are invalid */
    header(c, 0x1002, 0x67df, 0x10);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_false(caps.has_exp);
}

static void test_cap_loops(void)
{
    uint8_t c[256] = { 0 };
    header(c, 0x1002, 0x67df, 0x40);
    cap(c, 0x40, CAP_PM, 0x40);
    rd_pcie_caps caps;
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_false(caps.has_exp);

    /* a two-element loop through the PCIe capability still finds it once */
    cap(c, 0x40, CAP_PM, 0x48);
    exp_cap(c, 0x48, 0x40, 2, 0, 0x104, 0x1041, 0x180, 0x40);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_true(caps.has_exp);
    g_assert_cmphex(caps.devcap2, ==, 0x180);

    /* every byte 0xfc after the header: a list that points at itself at the end */
    memset(c + 0x40, 0xfc, sizeof c - 0x40);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_false(caps.has_exp);
}

static void test_bounds(void)
{
    rd_pcie_caps caps;

    /* PCIe capability near the end of 256 bytes: the base part fits, DevCap2 does not */
    uint8_t c[256] = { 0 };
    header(c, 0x1002, 0x67df, 0xe0);
    cap(c, 0xe0, CAP_EXP, 0);
    put16(c, 0xe2, 0x0002);
    put32(c, 0xec, 0x104);
    put16(c, 0xf2, 0x1041);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_true(caps.has_exp);
    g_assert_cmpint(caps.version, ==, 2);
    g_assert_cmphex(caps.lnksta, ==, 0x1041);
    g_assert_cmphex(caps.devcap2, ==, 0);

    /* the base part does not fit either */
    memset(c, 0, sizeof c);
    header(c, 0x1002, 0x67df, 0xf0);
    cap(c, 0xf0, CAP_EXP, 0);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_false(caps.has_exp);

    /* the last possible pointer */
    memset(c, 0, sizeof c);
    header(c, 0x1002, 0x67df, 0xfc);
    cap(c, 0xfc, CAP_EXP, 0xfc);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_false(caps.has_exp);

    /* 64 bytes (an unprivileged read): the list starts beyond the buffer.
     * Heap copies let ASan see a read past the end. */
    uint8_t *small = g_malloc0(64);
    header(small, 0x1002, 0x67df, 0x40);
    g_assert_cmpint(rd_pci_parse_caps(small, 64, &caps), ==, 0);
    g_assert_false(caps.has_exp);
    g_assert_false(caps.resizable_bar);
    header(small, 0x1002, 0x67df, 0x3c);
    small[0x3c] = CAP_EXP;
    small[0x3d] = 0x40;
    g_assert_cmpint(rd_pci_parse_caps(small, 64, &caps), ==, 0);
    g_assert_false(caps.has_exp);
    g_free(small);

    /* PCIe capability in the last bytes of a 0x60-byte buffer */
    uint8_t *odd = g_malloc0(0x60);
    header(odd, 0x1002, 0x67df, 0x4c);
    cap(odd, 0x4c, CAP_EXP, 0);
    put16(odd, 0x4e, 0x0002);
    put16(odd, 0x5e, 0x1041);
    g_assert_cmpint(rd_pci_parse_caps(odd, 0x60, &caps), ==, 0);
    g_assert_true(caps.has_exp);
    g_assert_cmphex(caps.lnksta, ==, 0x1041);
    g_assert_cmphex(caps.devcap2, ==, 0);
    g_free(odd);
}

static void test_errors(void)
{
    uint8_t c[256] = { 0 };
    rd_pcie_caps caps = { .type = 42 };
    header(c, 0xffff, 0xffff, 0x40);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, -ENODEV);
    header(c, 0x0000, 0x0000, 0x40);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, -ENODEV);
    header(c, 0x1002, 0x744c, 0x40);
    g_assert_cmpint(rd_pci_parse_caps(c, 63, &caps), ==, -EINVAL);
    g_assert_cmpint(rd_pci_parse_caps(c, 0, &caps), ==, -EINVAL);
    /* not written on failure */
    g_assert_cmpint(caps.type, ==, 42);

    memset(c, 0xff, sizeof c);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, -ENODEV);
}

static void test_extended(void)
{
    static uint8_t c[4096];
    rd_pcie_caps caps;

    /* loop onto itself */
    memset(c, 0, sizeof c);
    header(c, 0x1002, 0x744c, 0);
    ext_cap(c, 0x100, EXT_AER, 0x100);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_false(caps.resizable_bar);

    /* a longer loop with ReBAR in it */
    ext_cap(c, 0x100, EXT_AER, 0x180);
    ext_cap(c, 0x180, EXT_REBAR, 0x200);
    ext_cap(c, 0x200, EXT_VSEC, 0x100);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_true(caps.resizable_bar);

    /* the last dword of config space */
    memset(c, 0, sizeof c);
    header(c, 0x1002, 0x744c, 0);
    ext_cap(c, 0x100, EXT_AER, 0xffc);
    ext_cap(c, 0xffc, EXT_REBAR, 0);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_true(caps.resizable_bar);

    /* a next pointer back into the legacy area ends the walk */
    memset(c, 0, sizeof c);
    header(c, 0x1002, 0x744c, 0);
    ext_cap(c, 0x100, EXT_AER, 0x040);
    put32(c, 0x40, EXT_REBAR);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_false(caps.resizable_bar);

    /* all ones: no extended space (a conventional device) */
    memset(c, 0, sizeof c);
    header(c, 0x1002, 0x744c, 0);
    memset(c + 0x100, 0xff, sizeof c - 0x100);
    g_assert_cmpint(rd_pci_parse_caps(c, sizeof c, &caps), ==, 0);
    g_assert_false(caps.resizable_bar);

    /* a pointer past a short buffer */
    uint8_t *shortbuf = g_malloc0(0x110);
    header(shortbuf, 0x1002, 0x744c, 0);
    ext_cap(shortbuf, 0x100, EXT_AER, 0x1f0);
    g_assert_cmpint(rd_pci_parse_caps(shortbuf, 0x110, &caps), ==, 0);
    g_assert_false(caps.resizable_bar);
    ext_cap(shortbuf, 0x100, EXT_REBAR, 0x200);
    g_assert_cmpint(rd_pci_parse_caps(shortbuf, 0x110, &caps), ==, 0);
    g_assert_true(caps.resizable_bar);
    g_free(shortbuf);

    /* exactly 0x103 bytes: too short for one extended header */
    uint8_t *tiny = g_malloc0(0x103);
    header(tiny, 0x1002, 0x744c, 0);
    g_assert_cmpint(rd_pci_parse_caps(tiny, 0x103, &caps), ==, 0);
    g_assert_false(caps.resizable_bar);
    g_free(tiny);
}

static void test_link_speed(void)
{
    g_assert_cmpfloat(rd_parse_link_speed("16.0 GT/s PCIe"), ==, 16.0);
    g_assert_cmpfloat(rd_parse_link_speed("2.5 GT/s PCIe"), ==, 2.5);
    g_assert_cmpfloat(rd_parse_link_speed("8.0 GT/s PCIe"), ==, 8.0);
    g_assert_cmpfloat(rd_parse_link_speed("32.0 GT/s PCIe"), ==, 32.0);
    g_assert_cmpfloat(rd_parse_link_speed("5 GT/s"), ==, 5.0); /* older kernels */
    g_assert_cmpfloat(rd_parse_link_speed("16.0GT/s"), ==, 16.0);
    g_assert_cmpfloat(rd_parse_link_speed("Unknown"), ==, 0);
    g_assert_cmpfloat(rd_parse_link_speed("Unknown speed"), ==, 0);
    g_assert_cmpfloat(rd_parse_link_speed(""), ==, 0);
    g_assert_cmpfloat(rd_parse_link_speed("abc"), ==, 0);
    g_assert_cmpfloat(rd_parse_link_speed("-1 GT/s"), ==, 0);
    g_assert_cmpfloat(rd_parse_link_speed("0 GT/s"), ==, 0);
    g_assert_cmpfloat(rd_parse_link_speed("16.0"), ==, 0);
    g_assert_cmpfloat(rd_parse_link_speed("16.0 MT/s"), ==, 0);
    g_assert_cmpfloat(rd_parse_link_speed("inf GT/s"), ==, 0);
    g_assert_cmpfloat(rd_parse_link_speed("nan GT/s"), ==, 0);
    g_assert_cmpfloat(rd_parse_link_speed("1e300 GT/s"), ==, 0);
    g_assert_cmpfloat(rd_parse_link_speed("\xff GT/s"), ==, 0);
    g_assert_cmpfloat(rd_parse_link_speed(NULL), ==, 0);
}

static void test_ids_line(void)
{
    unsigned dev = 1, rev = 2;
    char *name = NULL;

    g_assert_cmpint(rd_amdgpu_ids_parse_line("744C,\tC8,\tAMD Radeon RX 7900 XTX", &dev, &rev, &name), ==, 1);
    g_assert_cmphex(dev, ==, 0x744c);
    g_assert_cmphex(rev, ==, 0xc8);
    g_assert_cmpstr(name, ==, "AMD Radeon RX 7900 XTX");
    g_free(name);

    g_assert_cmpint(rd_amdgpu_ids_parse_line("67df,\te7,\tRadeon RX 580 Series\r\n", &dev, &rev, &name), ==, 1);
    g_assert_cmphex(dev, ==, 0x67df);
    g_assert_cmphex(rev, ==, 0xe7);
    g_assert_cmpstr(name, ==, "Radeon RX 580 Series");
    g_free(name);

    /* spaces instead of tabs, commas in the name, trailing blanks */
    g_assert_cmpint(rd_amdgpu_ids_parse_line("  15BF , 0 ,  AMD Radeon 780M, Phoenix \t", &dev, &rev, &name), ==, 1);
    g_assert_cmphex(dev, ==, 0x15bf);
    g_assert_cmphex(rev, ==, 0);
    g_assert_cmpstr(name, ==, "AMD Radeon 780M, Phoenix");
    g_free(name);

    /* lines that are not device lines leave the outputs alone */
    dev = 1, rev = 2, name = NULL;
    static const char *const skipped[] = { "1.0.0", "# List of AMDGPU IDs", "#", "", "   ", "\t\n", "\n" };
    for (size_t i = 0; i < G_N_ELEMENTS(skipped); i++)
        g_assert_cmpint(rd_amdgpu_ids_parse_line(skipped[i], &dev, &rev, &name), ==, 0);

    static const char *const bad[] = {
        "744C,\tC8,",             /* no name */
        "744C,\tC8,\t  \t",       /* blank name */
        "744C,\tC8",              /* no second comma */
        "744C,",                  /* nothing after the device */
        "74G4,\tC8,\tAMD Radeon", /* bad hex in the device */
        "744C,\tXY,\tAMD Radeon", /* bad hex in the revision */
        "ZZZZ,\tC8,\tAMD Radeon",
        "1744C,\tC8,\tAMD Radeon", /* device above 16 bits */
        "744C,\t1C8,\tAMD Radeon", /* revision above 8 bits */
        ",\tC8,\tAMD Radeon",
        "garbage", /* not a version line either */
        "\xff\xfe,\xff,\xff",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *shown = g_strescape(bad[i], NULL);
        g_test_message("line %zu: %s", i, shown);
        g_assert_cmpint(rd_amdgpu_ids_parse_line(bad[i], &dev, &rev, &name), ==, -EINVAL);
    }
    g_assert_cmpuint(dev, ==, 1);
    g_assert_cmpuint(rev, ==, 2);
    g_assert_null(name);
}

static const char amdgpu_ids[] = "# List of AMDGPU IDs\n"
                                 "#\n"
                                 "# Syntax:\n"
                                 "# device_id,\trevision_id,\tproduct_name        <-- single tab after comma\n"
                                 "\n"
                                 "1.0.0\n"
                                 "15BF,\t00,\tAMD Radeon 780M\n"
                                 "67DF,\tC7,\tAMD Radeon RX 480 Graphics\n"
                                 "67DF,\tE7,\tAMD Radeon RX 580 Series\n"
                                 "6FDF,\tEF,\n" /* missing name: skipped */
                                 "73BF,\tQ1,\tbad revision\n"
                                 "744C,\tC8,\tAMD Radeon RX 7900 XTX\n"
                                 "744c,\tc8,\tsecond entry never wins\n"
                                 "744c,\tcc,\tAMD Radeon RX 7900 XT\n"
                                 "74A1,\t00,\tAMD Instinct MI300X";

static void test_ids_lookup(void)
{
    g_autofree char *xtx = rd_amdgpu_ids_lookup(amdgpu_ids, 0x744c, 0xc8);
    g_assert_cmpstr(xtx, ==, "AMD Radeon RX 7900 XTX");
    g_autofree char *xt = rd_amdgpu_ids_lookup(amdgpu_ids, 0x744c, 0xcc);
    g_assert_cmpstr(xt, ==, "AMD Radeon RX 7900 XT");
    g_autofree char *rx580 = rd_amdgpu_ids_lookup(amdgpu_ids, 0x67df, 0xe7);
    g_assert_cmpstr(rx580, ==, "AMD Radeon RX 580 Series");
    g_autofree char *rx480 = rd_amdgpu_ids_lookup(amdgpu_ids, 0x67df, 0xc7);
    g_assert_cmpstr(rx480, ==, "AMD Radeon RX 480 Graphics");
    /* the last line has no newline */
    g_autofree char *mi300x = rd_amdgpu_ids_lookup(amdgpu_ids, 0x74a1, 0x00);
    g_assert_cmpstr(mi300x, ==, "AMD Instinct MI300X");
    /* revision matters */
    g_assert_null(rd_amdgpu_ids_lookup(amdgpu_ids, 0x67df, 0xef));
    g_assert_null(rd_amdgpu_ids_lookup(amdgpu_ids, 0x6fdf, 0xef));
    g_assert_null(rd_amdgpu_ids_lookup(amdgpu_ids, 0x1234, 0x00));
    /* the version line is not device 1 */
    g_assert_null(rd_amdgpu_ids_lookup(amdgpu_ids, 0x1, 0x0));
    g_assert_null(rd_amdgpu_ids_lookup("", 0x744c, 0xc8));
}

static void test_ids_long_lines(void)
{
    /* a 300-character line is skipped whole; the lines after it still count */
    g_autofree char *long_name = g_strnfill(300 - 10, 'N');
    g_autofree char *text =
        g_strconcat("1.0.0\n744C,\tC8,\t", long_name, "\n744C,\tCC,\tAMD Radeon RX 7900 XT\n", NULL);
    g_assert_null(rd_amdgpu_ids_lookup(text, 0x744c, 0xc8));
    g_autofree char *xt = rd_amdgpu_ids_lookup(text, 0x744c, 0xcc);
    g_assert_cmpstr(xt, ==, "AMD Radeon RX 7900 XT");

    /* 255 characters still fit */
    g_autofree char *name245 = g_strnfill(255 - 10, 'M');
    g_autofree char *text255 = g_strconcat("744C,\tC8,\t", name245, NULL);
    g_assert_cmpuint(strlen(text255), ==, 255);
    g_autofree char *got = rd_amdgpu_ids_lookup(text255, 0x744c, 0xc8);
    g_assert_cmpstr(got, ==, name245);

    /* binary junk and embedded NULs */
    static const char junk[] = "\xff\xff\xff\n\x01,\x02,\x03\n744C,\tC8,\tAfter junk\n\0"
                               "67DF,\tE7,\thidden\n";
    g_autofree char *after = rd_amdgpu_ids_lookup(junk, 0x744c, 0xc8);
    g_assert_cmpstr(after, ==, "After junk");
    g_assert_null(rd_amdgpu_ids_lookup(junk, 0x67df, 0xe7));
}

static const char pci_ids[] = "#\tList of PCI ID's\n"
                              "#\n"
                              "0001  SafeNet (wrong ID)\n"
                              "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n"
                              "\t1478  Navi 10 XL Upstream Port of PCI Express Switch\n"
                              "\t67df  Ellesmere [Radeon RX 470/480/570/570X/580/580X/590]\n"
                              "\t\t1002 0b37  Radeon RX 480\n"
                              "# a comment between devices\n"
                              "\t744C  Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]\r\n"
                              "\t74a1  Aqua Vanjaram [Instinct MI300X]   \n"
                              "\t7550\n"
                              "10de  NVIDIA Corporation\n"
                              "\t2335  GH100 [H200 SXM 141GB]\n"
                              "1a03  \n"
                              "\t2000  ASPEED Graphics Family\n"
                              "C 03  Display controller\n"
                              "\t00  VGA compatible controller\n"
                              "ffff  after the classes\n";

static void assert_pci_ids(const char *text, size_t len, unsigned vendor, unsigned device, const char *want_vendor,
                           const char *want_device)
{
    /* an exact-size heap copy: a read past len is an ASan error */
    char *copy = g_malloc(len ? len : 1);
    memcpy(copy, text, len);
    char *v = (char *)"untouched", *d = (char *)"untouched";
    rd_pci_ids_lookup(copy, len, vendor, device, &v, &d);
    g_assert_cmpstr(v, ==, want_vendor);
    g_assert_cmpstr(d, ==, want_device);
    free(v);
    free(d);
    g_free(copy);
}

static void test_pci_ids(void)
{
    size_t len = sizeof pci_ids - 1;
    assert_pci_ids(pci_ids, len, 0x1002, 0x744c, "Advanced Micro Devices, Inc. [AMD/ATI]",
                   "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]");
    assert_pci_ids(pci_ids, len, 0x1002, 0x67df, "Advanced Micro Devices, Inc. [AMD/ATI]",
                   "Ellesmere [Radeon RX 470/480/570/570X/580/580X/590]");
    assert_pci_ids(pci_ids, len, 0x1002, 0x74a1, "Advanced Micro Devices, Inc. [AMD/ATI]",
                   "Aqua Vanjaram [Instinct MI300X]");
    assert_pci_ids(pci_ids, len, 0x10de, 0x2335, "NVIDIA Corporation", "GH100 [H200 SXM 141GB]");
    /* a device line without a name */
    assert_pci_ids(pci_ids, len, 0x1002, 0x7550, "Advanced Micro Devices, Inc. [AMD/ATI]", NULL);
    /* a subsystem line is not a device of the vendor */
    assert_pci_ids(pci_ids, len, 0x1002, 0x1002, "Advanced Micro Devices, Inc. [AMD/ATI]", NULL);
    /* devices belong to the vendor above them only */
    assert_pci_ids(pci_ids, len, 0x10de, 0x744c, "NVIDIA Corporation", NULL);
    assert_pci_ids(pci_ids, len, 0x1002, 0x2335, "Advanced Micro Devices, Inc. [AMD/ATI]", NULL);
    /* a vendor line without a name */
    assert_pci_ids(pci_ids, len, 0x1a03, 0x2000, NULL, "ASPEED Graphics Family");
    assert_pci_ids(pci_ids, len, 0x8086, 0x56a0, NULL, NULL);
    /* the class list ends the vendors */
    assert_pci_ids(pci_ids, len, 0xffff, 0x0000, NULL, NULL);

    /* the length bounds the text: cut inside the AMD block */
    size_t cut = (size_t)(strstr(pci_ids, "\t744C") - pci_ids);
    assert_pci_ids(pci_ids, cut, 0x1002, 0x744c, "Advanced Micro Devices, Inc. [AMD/ATI]", NULL);
    /* cut inside a device id */
    assert_pci_ids(pci_ids, cut + 3, 0x1002, 0x744c, "Advanced Micro Devices, Inc. [AMD/ATI]", NULL);
    /* cut inside the vendor line */
    size_t vcut = (size_t)(strstr(pci_ids, "1002  Adv") - pci_ids) + 2;
    assert_pci_ids(pci_ids, vcut, 0x1002, 0x744c, NULL, NULL);
    assert_pci_ids(pci_ids, vcut + 4, 0x1002, 0x744c, NULL, NULL);

    assert_pci_ids("", 0, 0x1002, 0x744c, NULL, NULL);
    assert_pci_ids("1002", 4, 0x1002, 0x744c, NULL, NULL);
    assert_pci_ids("1002  AMD\n\t744c", 15, 0x1002, 0x744c, "AMD", NULL);
    assert_pci_ids("1002  AMD\n\t744c  N", 18, 0x1002, 0x744c, "AMD", "N");

    static const char binary[] = "\xff\xff\n\t\t\t\n\0\0\n1002\0AMD\n\t744c\xff\xfe\n";
    /* the NUL cuts the copied name short; the scan goes on past it */
    assert_pci_ids(binary, sizeof binary - 1, 0x1002, 0x744c, "", "\xff\xfe");
}

/* ---- the assess rules, facts in, findings out (the whole probe table) ---- */

static void test_no_display_device(void)
{
    rd_facts f;
    rd_facts_init(&f);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "gpu.none");
    const rd_finding *fd = get(&r.fs, "gpu.none");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(fd->summary, ==, "No AMD GPU is visible on this host");
        assert_n_evidence(fd, 1);
        assert_evidence(fd, 0, "no display-class PCI device in /sys/bus/pci/devices");
        g_assert_true(g_str_has_prefix(fd->remedy, "Install an AMD GPU"));
        g_assert_null(fd->fix);
        g_assert_null(fd->gpu);
    }
    g_assert_cmpuint(r.view.n_gpus, ==, 0);
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_nvidia_only(void)
{
    rd_facts f;
    rd_facts_init(&f);
    rd_pci_device *d = add_pci(&f, "0000:41:00.0", 0x10de, 0x2335, 0x030200, NULL);
    d->driver = xstrdup("nvidia");
    d->device_name = xstrdup("GH100 [H200 SXM 141GB]");
    /* an ASPEED BMC display without a name */
    add_pci(&f, "0000:02:00.0", 0x1a03, 0x2000, 0x030000, NULL)->driver = xstrdup("ast");
    /* a bridge is not a display device */
    add_port(&f, "0000:40:01.1", 0x1022, 0x14ab, 4, NULL);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "gpu.none");
    const rd_finding *fd = get(&r.fs, "gpu.none");
    assert_n_evidence(fd, 2);
    assert_evidence(fd, 0, "NVIDIA GH100 [H200 SXM 141GB] (10de:2335), driver nvidia");
    assert_evidence(fd, 1, "ASPEED display device (1a03:2000), driver ast");
    if (fd)
        g_assert_true(g_str_has_prefix(fd->remedy, "ROCm needs an AMD GPU"));
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_container_without_gpu(void)
{
    rd_facts f;
    rd_facts_init(&f);
    f.os.container = xstrdup("docker");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "gpu.none");
    const rd_finding *fd = get(&r.fs, "gpu.none");
    if (fd)
        assert_contains(fd->remedy, "This is a docker container");
    result_free(&r);
    rd_facts_free(&f);
}

static void test_mi300x_partitions(void)
{
    /* CPX mode: the partitions of one MI300X put their index in the function bits */
    rd_facts f;
    rd_facts_init(&f);
    rd_pci_device *d = add_pci(&f, "0000:05:00.0", 0x1002, 0x74a1, 0x120000, NULL);
    d->display = true; /* processing accelerators are GPUs too, as the probe records them */
    d->driver = xstrdup("amdgpu");
    d->caps_readable = true;
    f.driver.module_present = true;
    f.kfd.present = true;
    add_cpu_node(&f);
    add_gpu_node(&f, (5 << 8) | 1, 90402, 0x74a1);
    add_gpu_node(&f, (5 << 8) | 0, 90402, 0x74a1);
    add_gpu_node(&f, (9 << 8) | 0, 90402, 0x74a1); /* a GPU PCI does not show */
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "");
    g_assert_cmpuint(r.view.n_gpus, ==, 1);
    g_assert_cmpuint(r.view.gpus[0].n_kfd, ==, 2);
    g_assert_cmpint(r.view.gpus[0].kfd[0]->node_id, ==, 1);
    g_assert_cmpint(r.view.gpus[0].kfd[1]->node_id, ==, 2);
    g_assert_cmpstr(r.view.gpus[0].gfx, ==, "gfx942");
    g_assert_cmpuint(r.view.n_unmatched, ==, 1);
    g_assert_cmpint(r.view.unmatched[0]->node_id, ==, 3);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_radeon_bound_si(void)
{
    rd_facts f;
    rd_facts_init(&f);
    rd_pci_device *d = add_pci(&f, "0000:01:00.0", 0x1002, 0x6818, 0x030000, NULL);
    d->driver = xstrdup("radeon");
    d->device_name = xstrdup("Pitcairn XT [Radeon HD 7870 GHz Edition]");
    d->caps_readable = true;
    d->pcie_type = 0;
    f.driver.radeon_loaded = true;
    f.os.id = xstrdup("ubuntu");
    f.os.version_id = xstrdup("24.04");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "gpu.radeon-bound");
    const rd_finding *fd = get(&r.fs, "gpu.radeon-bound");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(fd->gpu, ==, "0000:01:00.0");
        g_assert_cmpstr(fd->summary, ==,
                        "0000:01:00.0 Pitcairn XT [Radeon HD 7870 GHz Edition] is driven by the legacy radeon "
                        "driver, which ROCm cannot use");
        assert_n_evidence(fd, 2);
        assert_evidence(fd, 0, "/sys/bus/pci/devices/0000:01:00.0/driver -> radeon");
        assert_evidence(fd, 1, "1002:6818 is gfx601 (gfx6)");
        assert_contains(fd->remedy, "\"options amdgpu si_support=1\"");
        assert_contains(fd->remedy, "\"options radeon si_support=0\"");
        assert_contains(fd->remedy, "/etc/modprobe.d/amdgpu-si.conf");
        g_assert_cmpstr(fd->fix, ==, "modprobe");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);
    rd_facts_free(&f);
}

static void test_vfio_bound(void)
{
    rd_facts f;
    navi31_host(&f, WITH_ACCESS);
    f.driver.module_present = true;
    free(find_pci(&f, NAVI31)->driver);
    find_pci(&f, NAVI31)->driver = xstrdup("vfio-pci");
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "gpu.vfio-bound");
    const rd_finding *fd = get(&r.fs, "gpu.vfio-bound");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_WARNING);
        assert_n_evidence(fd, 1);
        assert_evidence(fd, 0, "/sys/bus/pci/devices/" NAVI31 "/driver -> vfio-pci");
        assert_contains(fd->remedy, "remove 1002:744c from vfio-pci.ids=");
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_WARNING);
    result_free(&r);
    rd_facts_free(&f);
}

/* An RX 580 in a chipset slot: the chipset's switch ports do not route AtomicOps. */
static void test_atomics_missing(void)
{
    rd_facts f;
    rd_facts_init(&f);
    rd_pci_device *d = add_port(&f, "0000:00:01.2", 0x1022, 0x1483, 4, NULL);
    d->atomic_comp32 = d->atomic_comp64 = true;
    add_port(&f, "0000:03:00.0", 0x1022, 0x43c6, 5, "0000:00:01.2");
    add_port(&f, "0000:04:04.0", 0x1022, 0x43c7, 6, "0000:03:00.0");
    d = add_pci(&f, "0000:05:00.0", 0x1002, 0x67df, 0x030000, "0000:04:04.0");
    d->revision = 0xe7;
    d->marketing_name = xstrdup("Radeon RX 580 Series");
    d->driver = xstrdup("amdgpu");
    d->pcie_type = 0;
    d->caps_readable = true;
    set_link(d, 8.0, 16, 8.0, 16);
    d->bar_sizes = xcalloc(1, sizeof(uint64_t));
    d->bar_sizes[0] = 8 * GIB;
    d->n_bar_sizes = 1;
    f.driver.module_present = true;
    rd_drm_device *drm = ARRAY_APPEND(f.drm.devices, f.drm.n_devices);
    drm->pci_address = xstrdup("0000:05:00.0");
    drm->vram_total = 8 * GIB;
    f.kfd.present = true;
    add_cpu_node(&f);
    add_kmsg(&f, 4, "kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0");

    result r;
    assess(&f, &r);
    /* and not driver.kfd-unsupported: the atomics finding is the reason */
    assert_ids(&r.fs, "pcie.atomics-missing");
    const rd_finding *fd = get(&r.fs, "pcie.atomics-missing");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_ERROR);
        g_assert_cmpstr(fd->gpu, ==, "0000:05:00.0");
        g_assert_cmpstr(fd->summary, ==,
                        "0000:05:00.0 Radeon RX 580 Series is not usable by ROCm: its PCIe path does not support "
                        "AtomicOps");
        assert_n_evidence(fd, 4);
        assert_evidence(fd, 0, "kernel: kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0");
        assert_evidence(fd, 1, "0000:04:04.0 (1022:43c7) on the path: AtomicOpsCap Routing-");
        assert_evidence(fd, 2, "0000:05:00.0: AtomicOpsCtl ReqEn-");
        assert_evidence(fd, 3, "gfx803 always needs PCIe atomics");
        g_assert_true(g_str_has_prefix(fd->remedy, "There is no software fix"));
        g_assert_null(fd->fix);
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_ERROR);
    result_free(&r);

    /* the same path with routing switches and no log line: KFD skipped it for another reason */
    f.pci.devices[1].atomic_routing = f.pci.devices[2].atomic_routing = true;
    free(f.driver.kmsg[0].text);
    f.driver.kmsg[0].text = xstrdup("kfd kfd: amdgpu: 67df not supported in kfd");
    assess(&f, &r);
    assert_ids(&r.fs, "driver.kfd-unsupported");
    result_free(&r);
    rd_facts_free(&f);
}

static void test_link(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    /* idle GPUs drop their speed: 2.5 of 16 GT/s at full width is fine */
    set_link(find_pci(&f, NAVI31_UPSTREAM), 2.5, 16, 16.0, 16);
    set_link(find_pci(&f, NAVI31), 2.5, 16, 16.0, 16);
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);

    /* x4 of x16 at the slot, in a x16 root port */
    set_link(find_pci(&f, NAVI31_UPSTREAM), 16.0, 4, 16.0, 16);
    assess(&f, &r);
    assert_ids(&r.fs, "pcie.link-degraded");
    const rd_finding *fd = get(&r.fs, "pcie.link-degraded");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_WARNING);
        g_assert_cmpstr(fd->gpu, ==, NAVI31);
        g_assert_cmpstr(fd->summary, ==, NAVI31 " " NAVI31_NAME " runs its PCIe link at x4 of x16");
        assert_n_evidence(fd, 1);
        assert_evidence(fd, 0, NAVI31_UPSTREAM ": link x4 of x16, 16.0 GT/s of 16.0 GT/s");
        g_assert_true(g_str_has_prefix(fd->remedy, "Reseat the card"));
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_WARNING);
    result_free(&r);

    /* a slot wired x4 */
    set_link(find_pci(&f, ROOT_PORT), 16.0, 4, 16.0, 4);
    assess(&f, &r);
    assert_ids(&r.fs, "pcie.link-degraded");
    fd = get(&r.fs, "pcie.link-degraded");
    assert_n_evidence(fd, 2);
    assert_evidence(fd, 1, ROOT_PORT " (the slot's port): at most x4");
    if (fd)
        g_assert_true(g_str_has_prefix(fd->remedy, "The slot itself is wired x4: move the card to a full x16 slot"));
    result_free(&r);

    /* the endpoint's internal link does not count when a switch carries the slot */
    set_link(find_pci(&f, ROOT_PORT), 16.0, 16, 16.0, 16);
    set_link(find_pci(&f, NAVI31_UPSTREAM), 16.0, 16, 16.0, 16);
    set_link(find_pci(&f, NAVI31), 16.0, 1, 16.0, 16);
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);
    rd_facts_free(&f);
}

static void test_bar_small(void)
{
    rd_facts f;
    navi31_host(&f, HEALTHY);
    rd_pci_device *gpu = find_pci(&f, NAVI31);
    gpu->bar_sizes[0] = 256 * MIB;
    gpu->resizable_bar = false;
    f.drm.devices[0].vram_total = 16 * GIB;
    /* a consumer board without Resizable BAR: normal, ROCm copes */
    result r;
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);

    /* the kernel could not place the large BAR */
    add_kmsg(&f, 3, "pci 0000:03:00.0: BAR 0: no space for [mem size 0x400000000 64bit pref]");
    add_kmsg(&f, 3, "pci 0000:03:00.0: BAR 0: failed to assign [mem size 0x400000000 64bit pref]");
    assess(&f, &r);
    assert_ids(&r.fs, "pcie.bar-small");
    const rd_finding *fd = get(&r.fs, "pcie.bar-small");
    if (fd) {
        g_assert_cmpint(fd->severity, ==, RD_SEV_WARNING);
        g_assert_cmpstr(fd->gpu, ==, NAVI31);
        g_assert_cmpstr(fd->summary, ==, NAVI31 " " NAVI31_NAME ": the CPU can map only 256 MiB of its 16384 MiB VRAM");
        assert_n_evidence(fd, 2);
        assert_evidence(fd, 0, NAVI31 ": largest memory BAR 256 MiB, VRAM 16384 MiB");
        assert_evidence(fd, 1, "kernel: pci 0000:03:00.0: BAR 0: no space for [mem size 0x400000000 64bit pref]");
        g_assert_true(g_str_has_prefix(fd->remedy, "Enable \"Above 4G Decoding\""));
    }
    g_assert_cmpint(rd_findings_exit_status(&r.fs), ==, RD_EXIT_WARNING);
    result_free(&r);

    /* a log line about another device does not count */
    free(f.driver.kmsg[0].text);
    f.driver.kmsg[0].text = xstrdup("pci 0000:04:00.0: BAR 0: no space for [mem size 0x400000000 64bit pref]");
    free(f.driver.kmsg[1].text);
    f.driver.kmsg[1].text = xstrdup("pci 0000:04:00.0: BAR 0: failed to assign [mem size 0x400000000 64bit pref]");
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);

    /* Instinct parts expect their whole memory mapped, log or not */
    for (size_t i = 0; i < f.kfd.nodes[1].n_properties; i++)
        if (streq(f.kfd.nodes[1].properties[i].key, "gfx_target_version"))
            f.kfd.nodes[1].properties[i].value = 90010;
    gpu->resizable_bar = true;
    assess(&f, &r);
    assert_ids(&r.fs, "pcie.bar-small");
    fd = get(&r.fs, "pcie.bar-small");
    assert_n_evidence(fd, 1);
    assert_evidence(fd, 0, NAVI31 ": largest memory BAR 256 MiB, VRAM 16384 MiB, Resizable BAR capability present");
    result_free(&r);

    /* a BAR as large as VRAM */
    gpu->bar_sizes[0] = 16 * GIB;
    assess(&f, &r);
    assert_ids(&r.fs, "");
    result_free(&r);
    rd_facts_free(&f);
}

/* The GPU's own switch, known by its shape: trees as in the corpus's
 * lspci dumps (X570 chipset switch, PLX switch, Navi and Vega 10 cards). */
static void test_board_switch(void)
{
    rd_facts f;
    rd_facts_init(&f);
    /* Vega 64 on an x1 riser: 1022:1470 -> 1022:1471 -> 1002:687f (add all
     * first: adding moves the array) */
    add_port(&f, "0000:00:1c.0", 0x8086, 0xa2b8, 4, NULL);
    add_port(&f, "0000:01:00.0", 0x1022, 0x1470, 5, "0000:00:1c.0");
    add_port(&f, "0000:02:00.0", 0x1022, 0x1471, 6, "0000:01:00.0");
    add_pci(&f, "0000:03:00.0", 0x1002, 0x687f, 0x030000, "0000:02:00.0");
    rd_pci_device *up = find_pci(&f, "0000:01:00.0"), *down = find_pci(&f, "0000:02:00.0");
    const rd_pci_device *vega = find_pci(&f, "0000:03:00.0");
    set_link(up, 2.5, 1, 8.0, 16);
    up->children = strv_push(NULL, xstrdup("0000:02:00.0"));
    down->children = strv_push(strv_push(NULL, xstrdup("0000:03:00.0")), xstrdup("0000:03:00.1"));
    g_assert_true(rd_gpu_board_switch(&f, vega) == up);
    /* X570: the chipset's 1022 upstream port has several downstream ports */
    up->children = strv_push(up->children, xstrdup("0000:02:02.0"));
    g_assert_null(rd_gpu_board_switch(&f, vega));
    /* ... or a downstream port with another device below */
    up->children[1] = (free(up->children[1]), NULL);
    down->children = strv_push(down->children, xstrdup("0000:03:01.0"));
    g_assert_null(rd_gpu_board_switch(&f, vega));
    /* a PLX switch (0x10b5) is never the card's */
    free(down->children[2]);
    down->children[2] = NULL;
    up->vendor_id = down->vendor_id = 0x10b5;
    g_assert_null(rd_gpu_board_switch(&f, vega));
    /* facts without the children lists: the GPU vendor's own ids only */
    up->vendor_id = down->vendor_id = 0x1022;
    strv_free(up->children);
    strv_free(down->children);
    up->children = down->children = NULL;
    g_assert_null(rd_gpu_board_switch(&f, vega));
    up->vendor_id = down->vendor_id = 0x1002;
    g_assert_true(rd_gpu_board_switch(&f, vega) == up);
    rd_facts_free(&f);
}

static const rd_test_case tests[] = {
    { "/pci/caps/endpoint", test_endpoint },
    { "/pci/caps/root-port", test_root_port },
    { "/pci/caps/switch-upstream", test_switch_upstream },
    { "/pci/caps/version1", test_version1 },
    { "/pci/caps/no-list", test_no_cap_list },
    { "/pci/caps/loops", test_cap_loops },
    { "/pci/caps/bounds", test_bounds },
    { "/pci/caps/errors", test_errors },
    { "/pci/caps/extended", test_extended },
    { "/pci/link-speed", test_link_speed },
    { "/pci/amdgpu-ids/line", test_ids_line },
    { "/pci/amdgpu-ids/lookup", test_ids_lookup },
    { "/pci/amdgpu-ids/long-lines", test_ids_long_lines },
    { "/pci/pci-ids", test_pci_ids },
    { "/assess/gpu/none", test_no_display_device },
    { "/assess/gpu/nvidia-only", test_nvidia_only },
    { "/assess/gpu/container-without-gpu", test_container_without_gpu },
    { "/assess/gpu/mi300x-partitions", test_mi300x_partitions },
    { "/assess/gpu/radeon-bound-si", test_radeon_bound_si },
    { "/assess/gpu/vfio-bound", test_vfio_bound },
    { "/assess/pcie/atomics-missing", test_atomics_missing },
    { "/assess/pcie/link", test_link },
    { "/assess/pcie/bar-small", test_bar_small },
    { "/assess/pcie/board-switch", test_board_switch },
};

RD_TEST_MAIN_KNOWLEDGE(tests, true, &knowledge)
