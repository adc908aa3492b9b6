// glossary_test.cpp: every term the PE inspector, the Wafer vs GPU window, the Train section and the run mode show has hover help.
#include "ui/glossary.h"

#include <gtest/gtest.h>

#include <string>

TEST(Glossary, EveryInspectorTermIsExplained) {
    for (const char* t : wlui::kInspectorTerms) {
        const char* text = wlui::glossary(t);
        ASSERT_NE(text, nullptr) << t;
        EXPECT_GT(std::string(text).size(), 10u) << t;
    }
    for (const char* t : wlui::kCompareTerms) EXPECT_NE(wlui::glossary(t), nullptr) << t;
    for (const char* t : wlui::kRunModeTerms) EXPECT_NE(wlui::glossary(t), nullptr) << t;
    for (const char* t : wlui::kTrainTerms) EXPECT_NE(wlui::glossary(t), nullptr) << t;
    EXPECT_EQ(wlui::glossary("no such term"), nullptr);
}
